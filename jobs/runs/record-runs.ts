import { type Job, UnrecoverableError, type Worker } from 'bullmq';

import type { RecordedRun, RunListener } from '../../src/app/observability/run-listener.ts';
import type { Logger } from '../../src/logging/logger.ts';
import { JOB, QUEUE } from '../definitions.ts';
import type { ExportJobData, ExportJobResult } from '../payloads/export-job.ts';
import { syncAccountJobId } from '../payloads/sync-jobs.ts';
import type { Runtime } from '../runtime.ts';

export type { RecordedRun, RunListener };

/** A job error kept in the history: one line, bounded (a stack or a huge body has no place in a table). */
const MAX_FAILURE_CHARS = 500;
const oneLine = (error: Error) => error.message.replace(/\s+/g, ' ').slice(0, MAX_FAILURE_CHARS);

/** A failed event is the job's last attempt when no retry follows it. */
function isFinalFailure(job: Job, error: Error): boolean {
  return error instanceof UnrecoverableError || job.attemptsMade >= (job.opts.attempts ?? 1);
}

const at = (ms: number | undefined) => new Date(ms ?? Date.now());

/**
 * Writes one `run` row per finished sync and export, and per reconciliation that could not run,
 * from the workers' completed/failed events rather than inside each processor: the processors stay
 * about their work, and a history write that fails (Postgres down) is logged without failing or
 * retrying a job that did succeed. The price: a worker killed between a job's end and this write
 * loses that row. A reconciliation that ran writes its own run row, with its report, in one
 * transaction (jobs/reconcile/run-fence.ts), so that the row and its alert survive Redis.
 */
export function recordRuns(runtime: Runtime, workers: Worker[], log: Logger, listeners: RunListener[] = []): void {
  const prisma = runtime.prisma;

  async function save(run: RecordedRun): Promise<void> {
    const { accountName: _accountName, ...row } = run;
    await prisma.run.create({ data: row });
    for (const listener of listeners) listener(run);
  }

  /** The windows of one account that finished since the run started: what this sync read. */
  async function syncWindowsSince(accountId: string, since: Date) {
    const result = await runtime.pool.query<{
      windows: number;
      rows: number;
      revised: number;
      failed: number;
      errors: string[];
    }>(
      `SELECT count(*)::int AS windows,
              coalesce(sum(rows), 0)::int AS rows,
              coalesce(sum(r.revised), 0)::int AS revised,
              (count(*) FILTER (WHERE status = 'failed'))::int AS failed,
              coalesce(array_agg(stream || ' ' || to_char(window_start AT TIME ZONE 'UTC', 'YYYY-MM-DD') || ': ' || coalesce(last_error, 'failed'))
                FILTER (WHERE status = 'failed'), '{}') AS errors
         FROM sync_window w
        CROSS JOIN LATERAL (SELECT count(*) AS revised FROM record_revision v
                             WHERE v.window_id = w.id AND v.read_id = w.read_id) r
        WHERE account_id = $1 AND status IN ('done', 'failed') AND updated_at >= $2`,
      [accountId, since],
    );
    return result.rows[0]!;
  }

  async function syncStartedAt(job: Job): Promise<Date> {
    const data = job.data as { accountId: string; runId: string };
    const planned = await runtime.queues.get(QUEUE.sync).getJob(syncAccountJobId(data));
    return at(planned?.processedOn ?? job.timestamp);
  }

  async function completed(queue: string, job: Job, result: unknown): Promise<void> {
    const jobId = `${queue}:${job.id}`;
    if (queue === QUEUE.sync && job.name === JOB.syncFinish) {
      const { accountId } = job.data as { accountId: string };
      const startedAt = await syncStartedAt(job);
      const windows = await syncWindowsSince(accountId, startedAt);
      await save({
        kind: 'sync',
        status: windows.failed > 0 ? 'partial' : 'succeeded',
        accountId,
        jobId,
        startedAt,
        finishedAt: at(job.finishedOn),
        rows: windows.rows,
        windows: windows.windows,
        failedWindows: windows.failed,
        failures: windows.errors.slice(0, 20),
        // Records the exchange changed since an earlier read (a lookback's settled transfers), kept in record_revision.
        detail: { revised: windows.revised },
      });
    } else if (queue === QUEUE.export) {
      const data = job.data as ExportJobData;
      const outcome = result as ExportJobResult;
      await save({
        kind: 'export',
        status: 'succeeded',
        accountId: data.accountId,
        jobId,
        startedAt: at(job.processedOn),
        finishedAt: at(job.finishedOn),
        rows: outcome.rowCount,
        detail: { report: data.report, csvFile: outcome.csvFile, unmappedRows: outcome.unmappedRows },
      });
    }
  }

  async function failed(queue: string, job: Job, error: Error): Promise<void> {
    if (!isFinalFailure(job, error)) return;
    const kind =
      queue === QUEUE.sync
        ? 'sync'
        : queue === QUEUE.reconcile
          ? 'reconciliation'
          : queue === QUEUE.export
            ? 'export'
            : undefined;
    if (kind === undefined) return;
    const data = (job.data ?? {}) as { accountId?: unknown };
    await save({
      kind,
      status: 'failed',
      accountId: typeof data.accountId === 'string' ? data.accountId : null,
      jobId: `${queue}:${job.id}`,
      startedAt: at(job.processedOn ?? job.timestamp),
      finishedAt: at(job.finishedOn),
      failures: [`${job.name}: ${oneLine(error)}`],
    });
  }

  for (const worker of workers) {
    const queue = worker.name;
    worker.on('completed', (job, result) => {
      completed(queue, job, result).catch((err: unknown) =>
        log.error({ err, queue, jobId: job.id }, 'run history not written'),
      );
    });
    worker.on('failed', (job, error) => {
      if (job === undefined) return;
      failed(queue, job, error).catch((err: unknown) =>
        log.error({ err, queue, jobId: job.id }, 'run history not written'),
      );
    });
  }
}
