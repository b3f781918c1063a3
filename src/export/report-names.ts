/**
 * The report names, on their own so that config can validate MONTHLY_EXPORT_REPORTS without
 * loading the reports (a test checks this list equals the registry's).
 */
export const REPORT_NAMES = [
  'spot-ledger',
  'futures-pnl',
  'futures-summary',
  'broker-transfers',
  'koinly',
  'cointracking',
] as const;

export type ReportName = (typeof REPORT_NAMES)[number];
