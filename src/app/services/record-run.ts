import { failedWindows, windowProgress } from '../../ingest/coverage/window-progress.ts';
import type { ReconciliationReport } from '../../reconcile/index.ts';
import type { AppRuntime } from '../app-runtime.ts';

/** Who ran it, when not a worker's job: the command (or the demo), kept in the run's `detail.by`. */
export type RunOrigin = 'ledgerline sync' | 'ledgerline backfill' | 'ledgerline reconcile' | 'npm run demo';

/** A failure kept in the history: one line, bounded, as the worker keeps its jobs' (record-runs.ts). */
const MAX_FAILURE_CHARS = 500;
const oneLine = (text: string) => text.replace(/\s+/g, ' ').slice(0, MAX_FAILURE_CHARS);

/**
 * Records a sync or backfill run from the command line (or the demo) as the worker records its
 * syncs: one `run` row, kind sync, with the rows and windows of the windows it read. So
 * `ledgerline runs`, the last-success metric and the no-success alert see an account synced by
 * hand exactly as one synced by the nightly run. `readIds`: the windows this run read (those not
 * done when it was planned); windows already complete are not its work.
 */
export async function recordWindowsRun(
  runtime: AppRuntime,
  run: { accountId: string; by: RunOrigin; startedAt: Date; readIds: readonly string[] },
): Promise<void> {
  const [progress, failed] = await Promise.all([
    windowProgress(runtime.pool, run.readIds),
    failedWindows(runtime.pool, run.readIds),
  ]);
  const sum = (pick: (p: (typeof progress)[number]) => number) => progress.reduce((n, p) => n + pick(p), 0);
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  await runtime.prisma.run.create({
    data: {
      kind: 'sync',
      status: failed.length > 0 ? 'partial' : 'succeeded',
      accountId: run.accountId,
      startedAt: run.startedAt,
      finishedAt: new Date(),
      rows: sum((p) => p.rows),
      windows: sum((p) => p.done + p.failed),
      failedWindows: failed.length,
      failures: failed.slice(0, 20).map((w) => oneLine(`${w.stream} ${day(w.start)}: ${w.lastError ?? 'failed'}`)),
      detail: { by: run.by, revised: sum((p) => p.revised) },
    },
  });
}

/**
 * A command-line run stopped by Ctrl-C (or SIGTERM): kept as failed (it did not finish) with
 * `detail.interrupted`, which `ledgerline runs` shows as `interrupted`, and how far it got, so the
 * history says why the next run resumed. The windows it finished are counted as any run's.
 */
export async function recordInterruptedRun(
  runtime: AppRuntime,
  run: {
    accountId: string;
    by: RunOrigin;
    startedAt: Date;
    readIds: readonly string[];
    /** Windows of the plan complete when it stopped (those complete before it included), of `total`. */
    done: number;
    total: number;
  },
): Promise<void> {
  const progress = await windowProgress(runtime.pool, run.readIds);
  const sum = (pick: (p: (typeof progress)[number]) => number) => progress.reduce((n, p) => n + pick(p), 0);
  await runtime.prisma.run.create({
    data: {
      kind: 'sync',
      status: 'failed',
      accountId: run.accountId,
      startedAt: run.startedAt,
      finishedAt: new Date(),
      rows: sum((p) => p.rows),
      windows: sum((p) => p.done + p.failed),
      failedWindows: sum((p) => p.failed),
      failures: [`interrupted: ${run.done} of ${run.total} windows done`],
      detail: { by: run.by, interrupted: true, revised: sum((p) => p.revised) },
    },
  });
}

/** Records a reconciliation run outside the worker, from its stored report, as the worker does. */
export async function recordReconciliationRun(
  runtime: AppRuntime,
  report: ReconciliationReport,
  by: RunOrigin,
): Promise<void> {
  const failedChecks = report.checks.filter((check) => !check.passed).map((check) => check.name);
  await runtime.prisma.run.create({
    data: {
      kind: 'reconciliation',
      status: report.passed ? 'succeeded' : 'failed',
      accountId: report.accountId,
      startedAt: report.startedAt,
      finishedAt: report.finishedAt,
      checksPassed: report.checks.length - failedChecks.length,
      checksFailed: failedChecks.length,
      failures: failedChecks,
      detail: { by, reportId: report.id },
    },
  });
}

/** A command-line run that ended in an error before it could finish: failed, with the error's line. */
export async function recordFailedRun(
  runtime: AppRuntime,
  run: { kind: 'sync' | 'reconciliation'; accountId: string; by: RunOrigin; startedAt: Date; error: unknown },
): Promise<void> {
  const message = run.error instanceof Error ? `${run.error.name}: ${run.error.message}` : String(run.error);
  await runtime.prisma.run.create({
    data: {
      kind: run.kind,
      status: 'failed',
      accountId: run.accountId,
      startedAt: run.startedAt,
      finishedAt: new Date(),
      failures: [oneLine(message)],
      detail: { by: run.by },
    },
  });
}
