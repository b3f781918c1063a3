import type { Runtime } from '../../jobs/runtime.ts';
import { type ReconciliationReport, runReconciliation } from '../reconcile/index.ts';

/**
 * The reconciliation of the demo account, as the nightly run does it
 * (re-counting the windows just read against the exchange).
 */
export function demoReconciliation(runtime: Runtime, accountId: string): Promise<ReconciliationReport> {
  return runReconciliation(runtime, { accountId, recount: 'recent' });
}
