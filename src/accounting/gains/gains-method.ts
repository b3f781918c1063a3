import { ValidationError } from '../../errors/index.ts';
import { LOT_METHODS, type LotMethod } from '../lots/lot-method.ts';

/**
 * How realized gains are computed (docs/reports.md, "realized-gains"): one of the lot methods
 * (fifo, lifo, hifo, average), or a jurisdiction's rules as accountants file them:
 * - `uk`: HMRC's share matching for cryptoassets (same day, 30 days, section 104 pool), in pounds;
 * - `de`: private sales under section 23 EStG (FIFO, one-year holding period, Freigrenze), in euros.
 */
export const GAINS_METHODS = [...LOT_METHODS, 'uk', 'de'] as const;
export type GainsMethod = (typeof GAINS_METHODS)[number];

export type RulesMethod = 'uk' | 'de';

export function isRulesMethod(method: GainsMethod | undefined): method is RulesMethod {
  return method === 'uk' || method === 'de';
}

/** The lot order a method walks with: `de` is FIFO (BMF letter on cryptoassets); `uk` has its own matcher. */
export function lotMethodOf(method: GainsMethod): LotMethod {
  return method === 'de' || method === 'uk' ? 'fifo' : method;
}

/**
 * The currency a jurisdiction's rules are stated in: its figures (HMRC's pounds, the Freigrenze in
 * euros) mean nothing in another currency, so these methods value in it and refuse any other.
 */
export const FILING_CURRENCY: Readonly<Record<RulesMethod, string>> = { uk: 'GBP', de: 'EUR' };

/**
 * The version of the rules a report applied, written into its manifest: which sources the
 * implementation follows (docs/reports.md cites them). Change it whenever the rules change.
 */
export const RULES_VERSION: Readonly<Record<GainsMethod, string>> = {
  fifo: 'ledgerline-lots-2',
  lifo: 'ledgerline-lots-2',
  hifo: 'ledgerline-lots-2',
  average: 'ledgerline-lots-2',
  uk: 'uk-hmrc-crypto22200-2025.2 (TCGA92 s104, s105, s106A, s38; CRYPTO22250-22257, CRYPTO61620)',
  de: 'de-estg23-2025.2 (EStG s23, s22 Nr. 3, s20; BMF 10 May 2022 and 6 March 2025; BGB s607)',
};

export function parseGainsMethod(value: string | undefined, field = 'method'): GainsMethod {
  if (value === undefined || value.trim() === '') return 'fifo';
  const method = value.trim().toLowerCase();
  if (!(GAINS_METHODS as readonly string[]).includes(method)) {
    throw new ValidationError(field, `must be one of ${GAINS_METHODS.join(', ')}`, value);
  }
  return method as GainsMethod;
}
