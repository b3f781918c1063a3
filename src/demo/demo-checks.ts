import type { AppRuntime } from '../app/app-runtime.ts';
import type { CheckName, CheckResult } from '../reconcile/index.ts';
import { type ReconciliationReport, runReconciliation } from '../reconcile/index.ts';

/**
 * The reconciliation of the demo account: every check a nightly run makes,
 * with `recount: edge` (recount-mode.ts). The demo's first sync reads 400 days
 * in one go, so `recent` would re-read every window at 1 spot request/s: as
 * long again as the backfill. `edge` still re-reads every positions and
 * transfers window and every spot window read before it had settled; the
 * settled spot history is held by the balance chain, anchored at the
 * exchange's own first and last record of each coin. Nightly runs keep
 * `recent` (jobs/reconcile), unchanged.
 */
export function demoReconciliation(
  runtime: AppRuntime,
  accountId: string,
  onCheck?: (name: CheckName, index: number, total: number, result?: CheckResult) => void,
): Promise<ReconciliationReport> {
  return runReconciliation(runtime, { accountId, recount: 'edge', ...(onCheck ? { onCheck } : {}) });
}
