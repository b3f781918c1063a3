/**
 * The accounting categories a spot record is booked into (spot-bookings.ts). Every report and the
 * accounting (lots, gains, balances) speak of records by these; a tax tool's own words for them
 * live in its dialect (src/export/reports/koinly.ts, cointracking.ts).
 */
export const ACCOUNTING_CATEGORIES = [
  'deposit',
  'withdrawal',
  'trade',
  'fee',
  'rebate',
  'refund',
  'income',
  'expense',
  'copy-trading',
  'internal-transfer',
  'lock',
  'earn',
  'loan',
  'adjustment',
  'unmapped',
] as const;
export type AccountingCategory = (typeof ACCOUNTING_CATEGORIES)[number];

/** The category of a spotTaxType that is not in the table. */
export const UNMAPPED_CATEGORY: AccountingCategory = 'unmapped';
