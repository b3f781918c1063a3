export { formatReport } from './format-report.ts';
export { parseRecountMode, RECENT_RECOUNT_DAYS, RECOUNT_MODES, type RecountMode } from './recount-mode.ts';
export type * from './report-types.ts';
export { type ReconcileDeps, type ReconcileOptions, runReconciliation } from './run-reconciliation.ts';
