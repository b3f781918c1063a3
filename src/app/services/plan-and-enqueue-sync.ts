import type { AccountSummary } from '../../accounts/account-service.ts';
import { ensureWindows } from '../../ingest/coverage/window-store.ts';
import { planRetries } from '../../ingest/retry-plan.ts';
import { planIncrementalSync } from '../../ingest/sync-plan.ts';
import { type StreamChoice, streamsOf } from '../../streams/registry.ts';
import type { AppRuntime } from '../app-runtime.ts';
import type { SyncRun } from '../job-port.ts';
import type { StartedBackfill } from './backfill.ts';
import { exchangeNow } from './exchange-now.ts';

export interface SyncRequest {
  stream?: StreamChoice;
  /** "Now" for the plan, read once: the exchange's clock (asked for when absent). */
  now?: number;
  /**
   * The nightly path: add the windows as children of this sync-finish job,
   * which BullMQ runs once every child has finished (reconciliation follows).
   * Without it (on demand) the windows are enqueued on their own.
   */
  finish?: SyncRun;
}

export interface StartedSync extends StartedBackfill {
  /** Earlier unfinished windows read again. */
  retried: number;
}

/**
 * One sync of an account, nightly or on demand: the windows from the end of
 * covered data (less the lookback) to now, plus every earlier window that
 * never finished, recorded in the coverage ledger and enqueued.
 */
export async function planAndEnqueueSync(
  runtime: AppRuntime,
  account: AccountSummary,
  request: SyncRequest = {},
): Promise<StartedSync> {
  const streams = streamsOf(request.stream);
  // Read once and passed down: the sync plan and the retry plan judge the horizon at one instant.
  const now = request.now ?? (await exchangeNow(runtime, account.id));
  const plan = await planIncrementalSync(runtime.pool, account, streams, now, runtime.config.sync);
  const retries = await planRetries(runtime.pool, account.id, streams, now);
  const windows = [...retries.windows, ...(await ensureWindows(runtime.pool, plan.windows))];
  const base = {
    windows,
    alreadyDone: windows.filter((w) => w.status === 'done').length,
    notes: [...retries.notes, ...plan.notes],
    retried: retries.windows.length,
  };
  if (!request.finish) return { ...base, enqueued: await runtime.jobs.enqueueWindows(windows) };
  return { ...base, enqueued: await runtime.jobs.enqueueSyncRun(request.finish, windows) };
}
