/**
 * The report names, in a module that imports nothing, so that config (the lowest layer) can
 * validate MONTHLY_EXPORT_REPORTS without importing export or loading the reports. A test checks
 * this list equals the registry's in src/export/reports.
 */
export const REPORT_NAMES = [
  'spot-ledger',
  'futures-pnl',
  'futures-summary',
  'futures-ledger',
  'margin-ledger',
  'p2p-ledger',
  'broker-transfers',
  'koinly',
  'koinly-futures',
  'koinly-margin',
  'koinly-p2p',
  'cointracking',
  'balances',
  'realized-gains',
  'realized-gains-summary',
  'income',
  'income-summary',
  'beancount',
] as const;

export type ReportName = (typeof REPORT_NAMES)[number];
