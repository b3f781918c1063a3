import type { AppRuntime } from '../app/app-runtime.ts';
import type { CheckName, CheckResult } from '../reconcile/index.ts';
import { type ReconciliationReport, runReconciliation } from '../reconcile/index.ts';

/**
 * The reconciliation of the demo account: every check a nightly run makes, as a night makes
 * them (`recount: recent`). The windows the backfill has just read are re-counted from that
 * read's own marks (src/reconcile/read-marks.ts), so the demo does not ask the exchange again
 * for the ~99 futures-ledger and ~40 spot pages it read a minute before (at 1 request/s each,
 * as long again as the backfill); a window whose marks disagree is asked as before. The spot
 * balance chain is still anchored at the exchange's own first and last record of each coin.
 */
export function demoReconciliation(
  runtime: AppRuntime,
  accountId: string,
  onCheck?: (name: CheckName, index: number, total: number, result?: CheckResult) => void,
): Promise<ReconciliationReport> {
  return runReconciliation(runtime, { accountId, recount: 'recent', ...(onCheck ? { onCheck } : {}) });
}
