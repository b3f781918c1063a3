import type { ExportRequest } from '../export/export-request.ts';
import type { SyncWindowRow } from '../ingest/coverage/window-store.ts';
import type { RecountMode } from '../reconcile/recount-mode.ts';

/** One nightly run of one account: the identity of its sync-finish job. */
export interface SyncRun {
  accountId: string;
  /** The nightly job's time; makes the run's job ids deterministic. */
  runId: string;
}

/**
 * What the application services ask of the job queue, owned here so that the services build on
 * no queue library and no queue map: jobs/ implements it (jobs/composition/queue-job-port.ts) and
 * the composition root hands it to them in the runtime (`runtime.jobs`). Every enqueue is under a
 * deterministic job id, so asking twice adds the work once.
 */
export interface JobPort {
  /** One ingest job for each window that needs one (not done, no job waiting or running); how many were added. */
  enqueueWindows(windows: readonly SyncWindowRow[]): Promise<number>;
  /**
   * The nightly path: the windows that need a job, added as children of the run's sync-finish
   * job, which runs once every child has finished; how many windows were added.
   */
  enqueueSyncRun(run: SyncRun, windows: readonly SyncWindowRow[]): Promise<number>;
  /** The account's reconciliation of today (one a day: a finished one is kept). */
  enqueueReconciliation(accountId: string, options: { recount: RecountMode }): Promise<{ id?: string }>;
  /** The action's job unless one waits or runs (a finished one is replaced); whether one was added. */
  enqueueAction(actionId: string): Promise<boolean>;
  /** An export's job (a finished one is kept unless `replaceFinished`). */
  enqueueExport(request: ExportRequest, options?: { replaceFinished?: boolean }): Promise<{ id?: string }>;
  /**
   * The tax years page's figures of the account (uk and de) at their current input version, unless
   * stored (src/export/filing): computed ahead of a view. How many computations were asked for.
   */
  enqueueFilingFigures(accountId: string): Promise<number>;
  /** How many workers listen on the queue of that work (to warn when none does). */
  workerCount(work: 'ingest' | 'management'): Promise<number>;
  /** The ids of the recurring jobs (cron) that the queue does not hold. */
  missingSchedules(): Promise<string[]>;
  /** Registers (or updates) every recurring job from the configuration. */
  upsertSchedules(): Promise<unknown>;
  /** Re-registers the recurring jobs whose next run lies further ahead of `now` than their interval (a clock jump). */
  repairSkewedSchedules(now: number): Promise<SkewedSchedule[]>;
}

/** A recurring job found scheduled too far ahead, and registered again. */
export interface SkewedSchedule {
  id: string;
  pattern: string;
  /** Its next run as it was found (Unix ms): every run before it would have been skipped. */
  next: number;
  /** Its next run by its pattern from now. */
  expected: number;
  /** Its next run once registered again. */
  now: number;
}
