import { planBackfill } from '../../ingest/backfill-plan.ts';
import { accountCoverage } from '../../ingest/coverage/coverage-summary.ts';
import { ensureWindows, type SyncWindowRow } from '../../ingest/coverage/window-store.ts';
import type { StreamChoice } from '../../streams/registry.ts';
import type { AppRuntime } from '../app-runtime.ts';
import { exchangeNow } from './exchange-now.ts';

export interface BackfillRequest {
  account: string;
  stream: StreamChoice;
  from: number;
  to: number;
  refetch?: boolean;
  /** "Now" for the horizon and for clamping --to; the exchange's clock (asked for when absent). */
  now?: number;
}

export interface StartedBackfill {
  windows: SyncWindowRow[];
  enqueued: number;
  /** Windows of the plan that were already complete: grid windows wholly covered, or done rows met again. */
  alreadyDone: number;
  /** Grid windows an earlier read covers in part: their rest is among `windows` (backfill-plan.ts). */
  partlyDone?: number;
  notes: string[];
}

/**
 * Validates and plans a backfill, records its windows in the coverage ledger
 * and enqueues the ones not yet done. Every check happens before anything is
 * written: a bad request leaves no window and no job behind.
 */
export async function startBackfill(runtime: AppRuntime, request: BackfillRequest): Promise<StartedBackfill> {
  const account = await runtime.accounts.get(request.account);
  const now = request.now ?? (await exchangeNow(runtime, account.id));
  const refetch = request.refetch ?? false;
  // Coverage as intervals: what any done window holds (on the grid or cut from an old --from) is not read again.
  const coverage = refetch ? undefined : await accountCoverage(runtime.pool, account.id);
  const plan = planBackfill(account, request.stream, request.from, request.to, now, coverage);
  const windows = await ensureWindows(runtime.pool, plan.windows, refetch);
  const enqueued = await runtime.jobs.enqueueWindows(windows);
  const doneRows = windows.filter((w) => w.status === 'done').length;
  return {
    windows,
    enqueued,
    alreadyDone: (plan.alreadyCovered ?? 0) + doneRows,
    partlyDone: plan.partlyCovered ?? 0,
    notes: plan.notes,
  };
}

/** How many workers are listening on the ingest queue (to warn when none is). */
export function ingestWorkerCount(runtime: AppRuntime): Promise<number> {
  return runtime.jobs.workerCount('ingest');
}
