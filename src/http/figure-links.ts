import type { RulesMethod } from '../accounting/gains/gains-method.ts';

/**
 * From a figure of a tax year to the rows behind it (routes/figure-rows-routes.ts): the page's
 * links and the routes' filters, in one place so they cannot drift apart.
 */

/** The gains rows' filters an accountant can follow from a figure, by method, with their words. */
export const GAINS_FILTERS = {
  uk: {
    'same-day': 'same-day rule',
    '30-day': '30-day rule (bed and breakfast)',
    s104: 'section 104 pool',
    'beyond-holdings': 'sold beyond the coins held',
    'withdrawal-beyond-holdings': 'withdrawn beyond the coins held',
  },
  de: {
    taxable: 'held one year or less (taxable)',
    'tax-free': 'held over one year (tax-free)',
  },
} as const satisfies Readonly<Record<RulesMethod, Readonly<Record<string, string>>>>;

export type GainsFilter = keyof (typeof GAINS_FILTERS)['uk'] | keyof (typeof GAINS_FILTERS)['de'];

export const isGainsFilter = (method: RulesMethod, value: string): value is GainsFilter =>
  Object.hasOwn(GAINS_FILTERS[method], value);

/** The words of a filter. */
export const filterWords = (method: RulesMethod, filter: GainsFilter): string =>
  (GAINS_FILTERS[method] as Readonly<Record<string, string>>)[filter]!;

const base = (accountId: string, method: RulesMethod, year: string) =>
  `/tax-years/${encodeURIComponent(accountId)}/${method}/${encodeURIComponent(year)}`;

function query(parts: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(parts)) if (value !== undefined) search.set(name, String(value));
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

/** The gains rows of a tax year: all, or one coin's, or one rule's (uk) or holding's (de). */
export function gainsRowsHref(
  accountId: string,
  method: RulesMethod,
  year: string,
  filter: { coin?: string | undefined; rule?: GainsFilter | undefined; page?: number | undefined } = {},
): string {
  return `${base(accountId, method, year)}/gains${query({ coin: filter.coin, rule: filter.rule, page: filter.page })}`;
}

/** The futures ledger's records behind a year's futures line of one margin coin. */
export function futuresRowsHref(
  accountId: string,
  method: RulesMethod,
  year: string,
  coin: string,
  page?: number,
): string {
  return `${base(accountId, method, year)}/futures${query({ coin, page })}`;
}

/** The income receipts behind a German year's other income (§ 22 Nr. 3 EStG). */
export function incomeRowsHref(accountId: string, year: string, page?: number): string {
  return `${base(accountId, 'de', year)}/income${query({ page })}`;
}
