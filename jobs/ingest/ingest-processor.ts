import { DelayedError, type Job, UnrecoverableError } from 'bullmq';
import type pg from 'pg';

import type { ClientProvider } from '../../src/accounts/client-provider.ts';
import { LedgerlineError } from '../../src/errors/index.ts';
import {
  type ExchangeError,
  ExchangeFailureBudgetError,
  ExchangeNetworkError,
  MalformedResponseError,
} from '../../src/exchange/errors/exchange-error.ts';
import { reportingFailedRequests } from '../../src/exchange/failed-requests.ts';
import { DEFAULT_FAILURE_BUDGET_MS } from '../../src/exchange/failure-bound.ts';
import {
  BACK_BEFORE_TURN_MS,
  BudgetWaitError,
  withoutBudgetWaits,
} from '../../src/exchange/rate-budget/budget-wait.ts';
import { fieldOfPath } from '../../src/exchange/responses/shape-drift.ts';
import { postgresPageStore } from '../../src/ingest/coverage/postgres-page-store.ts';
import { DatabaseCannotWriteError, type StorageAlarm } from '../../src/ingest/coverage/storage-alarm.ts';
import { failWindow, recordFailedRequest, startWindow } from '../../src/ingest/coverage/window-store.ts';
import { runWindow, type WindowRunResult } from '../../src/ingest/run-window.ts';
import { recordShapeDrift } from '../../src/ingest/shape-drift-store.ts';
import type { Logger } from '../../src/logging/logger.ts';
import type { IngestWindowJob } from '../payloads/ingest-job.ts';

export interface IngestProcessorDeps {
  pool: pg.Pool;
  clients: ClientProvider;
  log: Logger;
  /** True once the worker is shutting down: the job stops after the page in hand. */
  stopping: () => boolean;
  /** Where a database that cannot write is reported, outside the database (Redis, the process's metrics). */
  storage?: StorageAlarm;
  /** PAGE_FILL_EVIDENCE_DAYS in ms (src/streams/kit/page-fill.ts); default its default. */
  pageFillEvidenceMs?: number;
  /** PAGE_FILL_CANARY_EVERY (src/streams/kit/page-fill.ts); default its default. */
  pageFillCanaryEvery?: number;
  /** EXCHANGE_FAILURE_BUDGET_MS (src/exchange/failure-bound.ts); default its default. */
  failureBudgetMs?: number;
}

export type IngestJobResult = WindowRunResult | { discarded: string };

/** Whether trying again could help: our own errors say so; anything else (a dropped DB connection) may pass. */
function retryable(error: unknown): boolean {
  return error instanceof LedgerlineError ? error.retryable : true;
}

/** The class and message, as the window's last_error and the job's failure reason show it. */
function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/**
 * A page refused (a core field missing or garbled, a cursor that cycles): the window has failed
 * for good and says why in `status`; the refusal is also counted by (endpoint, field), for
 * /metrics and an `exchange_answer_refused` alert, so it cannot wait unseen until the horizon.
 */
async function countRefusal(
  deps: IngestProcessorDeps,
  entity: Record<string, unknown>,
  error: MalformedResponseError,
): Promise<void> {
  try {
    await recordShapeDrift(deps.pool, error.endpoint, [{ field: fieldOfPath(error.path), kind: 'refused', count: 1 }]);
  } catch (recordError) {
    deps.log.warn({ ...entity, err: recordError }, 'refused answer not counted');
  }
}

/**
 * How long a job reads pages before it lets the windows waiting run: a positions window of twenty
 * pages would otherwise keep its slot while spot windows back for their turn in their 1/s budgets
 * wait behind it.
 */
const TIME_SLICE_MS = 500;

/**
 * A window that gave its slot back comes back in the plain wait list, first come first served,
 * which workers take before any window not started yet (those wait prioritized by rank): a spot
 * window back at its timed turn must not queue behind hundreds of others' first windows.
 */
async function backOfTheLine(job: Job<IngestWindowJob>): Promise<void> {
  if (job.priority !== 0) await job.changePriority({ priority: 0 });
}

/**
 * Gives the worker slot up until `at`, marking the job's next run as the resumption of this one
 * (its window's attempts count tries, not budget waits or time slices). Returns the error that
 * tells BullMQ so, for the processor to throw.
 */
async function handBack(job: Job<IngestWindowJob>, at: number, token: string | undefined): Promise<DelayedError> {
  await job.updateData({ ...job.data, handedBackInRun: job.attemptsStarted });
  await job.moveToDelayed(at, token);
  return new DelayedError();
}

/** Whether this run resumes the one before it, which gave its slot up (see handBack). */
function resumes(job: Job<IngestWindowJob>): boolean {
  return job.data.handedBackInRun !== undefined && job.data.handedBackInRun === job.attemptsStarted - 1;
}

/** The queue's backoff before this job's next try (BullMQ's fixed or exponential backoff). */
function queueBackoffMs(job: Job<IngestWindowJob>): number {
  const backoff = job.opts.backoff;
  if (backoff === undefined) return 0;
  if (typeof backoff === 'number') return backoff;
  const delay = backoff.delay ?? 0;
  return backoff.type === 'exponential' ? 2 ** job.attemptsMade * delay : delay;
}

/**
 * Reads one window. The error's class decides what BullMQ does: a permanent
 * error (bad credentials, a rejected parameter) fails the job at once, a
 * transient one is retried with backoff and resumes from the stored cursor.
 */
export function createIngestProcessor(deps: IngestProcessorDeps) {
  return async (job: Job<IngestWindowJob>, token?: string): Promise<IngestJobResult> => {
    const { windowId, accountId, stream, scope } = job.data;
    /**
     * A database that cannot write (disk full, read-only) cannot record the window's failure
     * either: the job's error names the cause, and the alarm (Redis, the process's counter) tells
     * `status` and the metrics, none of which needs a database write.
     */
    const cannotWrite = async (error: unknown): Promise<unknown> => {
      const failure = await deps.storage?.record(error, windowId);
      return failure ? new DatabaseCannotWriteError(failure, error) : error;
    };
    const entity = { jobId: job.id, accountId, stream, scope: scope || undefined, windowId };
    let window;
    try {
      window = await startWindow(deps.pool, windowId, !resumes(job));
    } catch (error) {
      // The coverage ledger is unreachable (a database outage): nothing can be recorded, so say it here.
      deps.log.error({ ...entity, err: error }, 'ingest window not started: its row could not be read');
      throw await cannotWrite(error);
    }
    if (!window) {
      deps.log.warn(entity, 'ingest window discarded: the window no longer exists');
      return { discarded: 'window not found' };
    }
    if (window.status === 'done') {
      deps.log.info(entity, 'ingest window discarded: already done');
      return { discarded: 'already done' };
    }
    // A window resumes once per time slice or budget turn: only its first start is news to an operator.
    deps.log[window.pages === 0 ? 'info' : 'debug'](
      { ...entity, from: new Date(window.start), to: new Date(window.end), cursor: window.cursor },
      window.pages === 0 ? 'ingest window started' : 'ingest window resumed',
    );
    const began = Date.now();
    // Each request the exchange fails counts on the window at once, with its error, whether the
    // client retries it or not: a failing exchange shows while the retries go on.
    // A network error (no answer, one trickled past its deadline) once the window has been failing
    // for the budget is final: the window fails within its bound (src/exchange/failure-bound.ts).
    const budgetMs = deps.failureBudgetMs ?? DEFAULT_FAILURE_BUDGET_MS;
    let failingSince: number | undefined;
    const recordFailure = async (failure: ExchangeError): Promise<ExchangeError | undefined> => {
      try {
        const failingMs = await recordFailedRequest(deps.pool, windowId, describe(failure));
        if (failingMs !== undefined) failingSince = Date.now() - failingMs;
      } catch (recordError) {
        deps.log.warn({ ...entity, err: recordError }, 'failed request not recorded on its window');
      }
      if (!(failure instanceof ExchangeNetworkError) || failingSince === undefined) return undefined;
      const failingMs = Date.now() - failingSince;
      return failingMs >= budgetMs ? new ExchangeFailureBudgetError(failure, failingMs, budgetMs) : undefined;
    };
    // A try ended by a network error is final too when the budget would run out during the queue's
    // backoff: none straddles its end, so the bound holds whatever the backoff has grown to.
    const budgetSpent = (error: unknown, job: Job<IngestWindowJob>): unknown => {
      if (!(error instanceof ExchangeNetworkError) || failingSince === undefined) return error;
      const failingMs = Date.now() - failingSince;
      return failingMs + queueBackoffMs(job) >= budgetMs
        ? new ExchangeFailureBudgetError(error, failingMs, budgetMs)
        : error;
    };
    try {
      const client = await deps.clients.forAccount(accountId);
      // A job never holds its worker slot while its account's budget is spent: the wait throws
      // BudgetWaitError (below), so other accounts' windows run meanwhile.
      const result = await withoutBudgetWaits(`ingest:${job.id ?? windowId}`, () =>
        reportingFailedRequests(recordFailure, () =>
          runWindow({
            store: postgresPageStore(deps.pool, {
              pageFillEvidenceMs: deps.pageFillEvidenceMs,
              pageFillCanaryEvery: deps.pageFillCanaryEvery,
            }),
            client,
            window,
            shouldStop: deps.stopping,
            shouldYield: () => Date.now() - began > TIME_SLICE_MS,
            onPage: (progress) => job.updateProgress({ pages: progress.pages, rows: progress.rows }),
          }),
        ),
      );
      if (!result.done && !deps.stopping()) {
        // Its time slice is over: behind the windows waiting now, from the stored cursor.
        deps.log.debug({ ...entity, pages: result.pages }, 'ingest window yields its worker slot');
        await backOfTheLine(job);
        throw await handBack(job, Date.now(), token);
      }
      if (!result.done) {
        // Shutting down: hand the job back; it resumes from the stored cursor.
        deps.log.info({ ...entity, pages: result.pages }, 'ingest window released for shutdown');
        throw await handBack(job, Date.now() + 500, token);
      }
      if (result.readFrom !== undefined && result.plannedAtHorizon) {
        // Planned at the horizon, read a little later: the horizon slid on meanwhile, as it always does.
        deps.log.info(
          { ...entity, readFrom: new Date(result.readFrom) },
          'ingest window planned at the exchange horizon read from where the horizon had moved to',
        );
      } else if (result.readFrom !== undefined) {
        deps.log.warn(
          { ...entity, readFrom: new Date(result.readFrom) },
          'ingest window read from the exchange horizon: older records of the window had passed it unread',
        );
      }
      deps.log.info({ ...entity, ...result }, 'ingest window completed');
      await deps.storage?.clear();
      return result;
    } catch (thrown) {
      if (thrown instanceof DelayedError) throw thrown;
      const error = budgetSpent(thrown, job);
      if (error instanceof BudgetWaitError) {
        // Back at its turn in the budget, from the stored cursor (the pages read so far are stored).
        deps.log.debug({ ...entity, waitMs: error.waitMs }, 'ingest window waits for its rate budget');
        await backOfTheLine(job);
        throw await handBack(job, Date.now() + Math.max(0, error.waitMs - BACK_BEFORE_TURN_MS), token);
      }
      const canRetry = retryable(error);
      const final = !canRetry || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      // Logged before it is recorded: in a database outage recording fails too, and the failure
      // must still be seen.
      deps.log[final ? 'error' : 'warn']({ ...entity, err: error, final }, 'ingest window failed');
      try {
        await failWindow(deps.pool, windowId, describe(error), final);
      } catch (recordError) {
        deps.log.error(
          { ...entity, err: recordError },
          'ingest window failure not recorded: the window row is unchanged',
        );
        // Retried whatever the first error was: a later attempt, with the database back, records the outcome.
        throw await cannotWrite(recordError);
      }
      if (error instanceof MalformedResponseError) await countRefusal(deps, entity, error);
      if (!canRetry) throw new UnrecoverableError(describe(error));
      throw error;
    }
  };
}
