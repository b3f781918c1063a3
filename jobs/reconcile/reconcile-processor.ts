import { DelayedError, type Job, UnrecoverableError } from 'bullmq';

import { LedgerlineError } from '../../src/errors/index.ts';
import type { Logger } from '../../src/logging/logger.ts';
import { fullCheckDue } from '../../src/reconcile/full-check-schedule.ts';
import { parseRecountMode } from '../../src/reconcile/recount-mode.ts';
import { type ReconcileDeps, runReconciliation } from '../../src/reconcile/run-reconciliation.ts';
import { SupersededRunError } from '../../src/reconcile/superseded-run-error.ts';
import { QUEUE } from '../definitions.ts';
import type { ReconcileJob, ReconcileJobResult } from '../payloads/reconcile-job.ts';
import type { RunListener } from '../runs/record-runs.ts';
import type { DetachedRuns, RunOutcome } from './detached-runs.ts';
import type { PgRunStore } from './run-fence.ts';

/**
 * How long a job keeps its slot for its run to settle before leaving it: a reconciliation with
 * nothing to ask the exchange (recount none, a quiet night) finishes in the slot.
 */
const IN_SLOT_MS = 1_000;
/** A job whose process has too many runs in flight comes back this much later. */
const FULL_RETRY_MS = 2_000;

export interface ReconcileProcessorOptions {
  /** The full check's schedule: RECONCILE_FULL_EVERY_DAYS (0: never). */
  fullEveryDays: number;
  /** Runs of this process (detached-runs.ts), their outcomes fenced in `store`. */
  runs: DetachedRuns<ReconcileJobResult>;
  store: PgRunStore;
  /** How many runs one process keeps in flight, waiting for their budgets, at most. */
  maxInFlight: number;
  /** Told of each run row a run wrote (with its report, in one transaction): the alerts, the metrics. */
  runListeners?: RunListener[];
}

/**
 * Reconciles one account and writes its report row. Failing checks are the
 * report's verdict, not the job's: the job completes and logs the failures
 * (at warn). Only a run that cannot happen fails the job: a bad payload or
 * an unknown account at once, anything else (the database down) after the
 * queue's retries.
 *
 * The run never holds the job's worker slot while it waits for the account's rate budgets: after
 * IN_SLOT_MS the job moves to delayed and the run, going on in this process, brings it back when it
 * settles (detached-runs.ts), so one worker reconciles many accounts side by side at their budgets.
 */
export function createReconcileProcessor(deps: ReconcileDeps, log: Logger, options: ReconcileProcessorOptions) {
  const { runs } = options;
  return async (job: Job<ReconcileJob>, token?: string): Promise<ReconcileJobResult> => {
    const { accountId } = job.data;
    const entity = { jobId: job.id, accountId };
    // One run per job as enqueued: a job replaced under the same id (a manual re-run) is another run.
    const runId = `${job.id}@${job.timestamp}`;
    const leave = async (at: number): Promise<DelayedError> => {
      await job.moveToDelayed(at, token);
      return new DelayedError();
    };

    const settled = await runs.takeOutcome(runId);
    if (settled) return finish(settled);
    if (runs.has(runId)) throw await leave(Date.now() + runs.claimTtlMs);
    if (runs.size >= options.maxInFlight) {
      log.debug({ ...entity, inFlight: runs.size }, 'reconciliation waits: this process has its runs in flight');
      throw await leave(Date.now() + FULL_RETRY_MS);
    }
    const run = await runs.start(runId, (token) => reconcile(job.id, job.data, runId, token), isRetryable);
    if (!run) {
      // Another live process runs it and will bring the job back when it settles.
      log.debug(entity, 'reconciliation runs in another process');
      throw await leave(Date.now() + runs.claimTtlMs);
    }
    const outcome = await run.settledWithin(IN_SLOT_MS);
    if (outcome === 'superseded') {
      // Another process's run took the job over: its run brings the job back when it settles.
      log.warn(entity, 'reconciliation lost its claim to another run: it wrote nothing');
      throw await leave(Date.now() + runs.claimTtlMs);
    }
    if (outcome) {
      // An error is taken from the store, so that a retry starts the run afresh.
      if (!outcome.ok) await runs.takeOutcome(runId).catch(() => undefined);
      return finish(outcome);
    }
    // The slot goes to other jobs while the run waits for budgets; the run promotes the job when it
    // settles, and the delay only matters if this process dies first (the claim expires with it).
    const error = await leave(Date.now() + runs.claimTtlMs + 1_000);
    await run.leaveSlot(() => job.promote());
    throw error;

    function finish(outcome: RunOutcome<ReconcileJobResult>): ReconcileJobResult {
      if (outcome.ok) return outcome.value;
      log.error({ ...entity, error: outcome.message }, 'reconciliation could not run');
      if (!outcome.retryable) throw new UnrecoverableError(outcome.message);
      throw new Error(outcome.message);
    }
  };

  async function reconcile(
    jobId: string | undefined,
    data: ReconcileJob,
    runKey: string,
    token: number,
  ): Promise<ReconcileJobResult> {
    const { accountId } = data;
    const recount = parseRecountMode(data.recount, 'recount');
    // A job may ask for a full check; otherwise the schedule decides (the nightly run's).
    const full = data.full === true || (await fullCheckDue(deps.pool, accountId, options.fullEveryDays, Date.now()));
    log.info({ jobId, accountId, recount, full }, 'reconciliation started');
    // The report, its run row and the run's outcome commit together, only while this run holds the
    // latest claim (run-fence.ts): what the job and the alerts see comes from Postgres, not Redis.
    const store = options.store.reportStore(runKey, token, `${QUEUE.reconcile}:${jobId}`, (run) => {
      for (const listener of options.runListeners ?? []) listener(run);
    });
    const report = await runReconciliation(deps, { accountId, recount, full, store }).catch((error: unknown) => {
      if (error instanceof SupersededRunError) {
        log.warn({ jobId, accountId, token }, 'reconciliation lost its claim to another run: it wrote nothing');
      }
      throw error;
    });
    const failedChecks = report.checks.filter((c) => !c.passed).map((c) => c.name);
    log[report.passed ? 'info' : 'warn'](
      {
        jobId,
        accountId,
        account: report.accountName,
        reportId: report.id,
        passed: report.passed,
        failedChecks,
        failures: report.checks.flatMap((c) => c.failures).slice(0, 20),
      },
      `reconciliation completed for ${report.accountName}: ${report.passed ? 'passed' : 'FAILED'}`,
    );
    return { reportId: report.id, passed: report.passed, failedChecks };
  }
}

/** A bad payload or an unknown account will not get better; anything else (the database down) may. */
function isRetryable(error: unknown): boolean {
  return !(error instanceof LedgerlineError) || error.retryable;
}
