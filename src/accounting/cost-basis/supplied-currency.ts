import { ValidationError } from '../../errors/index.ts';
import { ISO_CURRENCIES } from '../../vocabulary/iso-currencies.ts';
import { FILING_CURRENCY } from '../gains/gains-method.ts';
import { coinCode } from '../prices/price-point.ts';

/**
 * Which currencies a supplied figure may be stated in. Nothing is converted (supplied-costs.ts):
 * a figure prices only the walks valued in its own currency, so a currency no walk can be valued
 * in is a mistake to refuse, not a row to keep.
 */
export interface CurrencyRule {
  readonly accepts: (code: string) => boolean;
  /** The rule in words, for the error: "must be ...". */
  readonly words: string;
}

const FILING = Object.values(FILING_CURRENCY);

/**
 * The command line's rule: an ISO 4217 currency (pounds price `--method uk`, euros `--method de`,
 * any other the lot methods valued in it with `--valuation`), or the installation's valuation
 * currency (VALUATION_CURRENCY, e.g. USDT: the lot methods' default), which need not be ISO.
 */
export function isoOr(valuationCurrency: string | undefined): CurrencyRule {
  const extra = valuationCurrency?.toUpperCase();
  return {
    accepts: (code) => ISO_CURRENCIES.has(code) || code === extra,
    words:
      extra === undefined || ISO_CURRENCIES.has(extra)
        ? 'must be an ISO 4217 currency code such as GBP, EUR or USD'
        : `must be an ISO 4217 currency code such as GBP, EUR or USD, or ${extra} (the valuation currency)`,
  };
}

/** The tax years page's rule: the currencies the tax-year methods value in (GBP for uk, EUR for de). */
export const FILING_CURRENCIES: CurrencyRule = {
  accepts: (code) => FILING.includes(code),
  words: `must be ${FILING.join(' or ')}: the tax-year figures are valued in ${FILING_CURRENCY.uk} (uk) and ${FILING_CURRENCY.de} (de), and nothing is converted`,
};

/** A supplied figure's currency as stored (upper case), or the ValidationError naming the rule. */
export function suppliedCurrency(field: string, value: string, rule: CurrencyRule): string {
  const code = coinCode(field, value);
  if (!rule.accepts(code)) throw new ValidationError(field, rule.words, value);
  return code;
}

/** Which reports a figure in `currency` prices, in words (the command's answer after an import). */
export function currencyPrices(currency: string): string {
  const method = Object.entries(FILING_CURRENCY).find(([, c]) => c === currency)?.[0];
  return method === undefined
    ? `${currency}: prices the lot methods (fifo, lifo, hifo, average) valued in ${currency} only, not uk (${FILING_CURRENCY.uk}) or de (${FILING_CURRENCY.de})`
    : `${currency}: prices --method ${method} and the lot methods valued in ${currency}`;
}
