import type { Command } from 'commander';
import { ingestWorkerCount, startBackfill } from '../../../jobs/ingest/backfill.ts';
import { createRuntime, type Runtime } from '../../../jobs/runtime.ts';
import { startWorkers } from '../../../jobs/workers.ts';
import { parseStreamChoice } from '../../ingest/backfill-plan.ts';
import { failedWindows, windowProgress, type StreamProgress } from '../../ingest/coverage/window-progress.ts';
import { formatInstant, parseInstant } from '../../ingest/time-arguments.ts';
import { PermanentError } from '../../errors/index.ts';
import { WindowProgressView } from '../progress/window-progress-view.ts';
import { runTool } from '../run-tool.ts';

interface BackfillOptions {
  account: string;
  stream: string;
  from: string;
  to?: string;
  refetch?: boolean;
  withWorker?: boolean;
}

export class BackfillFailedError extends PermanentError {
  constructor(count: number) {
    super(`${count} window(s) failed (listed above); fix the cause and run the same command again to resume them`, {
      code: 'BACKFILL_FAILED',
    });
  }
}

/** Polls the coverage ledger until every window is done or failed. */
async function watch(runtime: Runtime, ids: string[], view: WindowProgressView): Promise<StreamProgress[]> {
  for (;;) {
    const progress = await windowProgress(runtime.pool, ids);
    view.update(progress);
    if (progress.every((p) => p.done + p.failed === p.total)) return progress;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

export function registerBackfillCommand(program: Command): void {
  program
    .command('backfill')
    .description('read an account history range into the database, window by window, and show progress until done')
    .requiredOption('--account <name>', 'a registered account')
    .requiredOption('--stream <stream>', 'positions, spot, transfers or all')
    .requiredOption('--from <time>', 'start (inclusive): YYYY-MM-DD (UTC), an ISO date-time with offset, or Unix ms')
    .option('--to <time>', 'end (exclusive), same forms; default now')
    .option('--refetch', 'read again windows that are already complete')
    .option('--with-worker', 'process the jobs in this process too (no separate `ledgerline worker` needed)')
    .action((options: BackfillOptions) =>
      runTool(async (config) => {
        // Every argument is checked before anything is written or enqueued.
        const stream = parseStreamChoice(options.stream);
        const from = parseInstant('--from', options.from);
        const to = options.to === undefined ? Date.now() : parseInstant('--to', options.to);
        const runtime = createRuntime(config);
        const workers = options.withWorker ? startWorkers(runtime) : undefined;
        const view = new WindowProgressView();
        try {
          const started = await startBackfill(runtime, {
            account: options.account,
            stream,
            from,
            to,
            refetch: options.refetch,
          });
          for (const note of started.notes) console.log(`note: ${note}`);
          console.log(
            `backfill ${options.account} ${stream} ${formatInstant(from)} .. ${formatInstant(to)}: ${started.windows.length} windows, ` +
              `${started.alreadyDone} already complete, ${started.enqueued} enqueued`,
          );
          if (!workers && started.enqueued > 0 && (await ingestWorkerCount(runtime)) === 0) {
            console.log('warning: no worker is running; start one with `ledgerline worker` (or pass --with-worker)');
          }
          const ids = started.windows.map((w) => w.id);
          const progress = await watch(runtime, ids, view);
          view.stop();
          for (const p of progress) console.log(`${p.stream}: ${p.done}/${p.total} windows done, ${p.rows} rows read`);
          const failed = await failedWindows(runtime.pool, ids);
          for (const w of failed) {
            console.log(
              `failed: ${w.stream}${w.scope ? ` ${w.scope}` : ''} ${formatInstant(w.start)} .. ${formatInstant(w.end)}: ${w.lastError ?? 'unknown error'}`,
            );
          }
          if (failed.length > 0) throw new BackfillFailedError(failed.length);
        } finally {
          view.stop();
          await workers?.close();
          await runtime.close();
        }
      }),
    );
}
