export { runReconciliation, type ReconcileDeps, type ReconcileOptions } from './run-reconciliation.ts';
export { formatReport } from './format-report.ts';
export { parseRecountMode, RECOUNT_MODES, RECENT_RECOUNT_DAYS, type RecountMode } from './recount-mode.ts';
export type * from './report-types.ts';
