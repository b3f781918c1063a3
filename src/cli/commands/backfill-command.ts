import type { Command } from 'commander';

import { createRuntime } from '../../../jobs/composition/create-runtime.ts';
import { startWorkers } from '../../../jobs/composition/workers.ts';
import { refreshAccountTradePrices } from '../../app/services/after-sync.ts';
import { startBackfill } from '../../app/services/backfill.ts';
import { analyzeHistories } from '../../ingest/analyze-histories.ts';
import { formatInstant, parseInstant } from '../../ingest/time-arguments.ts';
import { parseStreamChoice, STREAMS } from '../../streams/registry.ts';
import { runTool } from '../run-tool.ts';
import { watchWindows } from '../watch-windows.ts';
import { settleWorkerLog, workerLogsToFileWhileBarsDraw } from '../worker-log-file.ts';

interface BackfillOptions {
  account: string;
  stream: string;
  from: string;
  to?: string;
  refetch?: boolean;
  withWorker?: boolean;
}

export function registerBackfillCommand(program: Command): void {
  program
    .command('backfill')
    .description('read an account history range into the database, window by window, and show progress until done')
    .requiredOption('--account <name>', 'a registered account')
    .requiredOption('--stream <stream>', `${STREAMS.join(', ')} or all`)
    .requiredOption('--from <time>', 'start (inclusive): YYYY-MM-DD (UTC), an ISO date-time with offset, or Unix ms')
    .option('--to <time>', 'end (exclusive), same forms; default now')
    .option('--refetch', 'read again windows that are already complete')
    .option('--with-worker', 'process the jobs in this process too (no separate `ledgerline worker` needed)')
    .action((options: BackfillOptions) =>
      runTool(
        async (config, { stream, from, to }) => {
          const runtime = createRuntime(config);
          const logFile = options.withWorker ? workerLogsToFileWhileBarsDraw(config, 'backfill') : undefined;
          let succeeded = false;
          const workers = options.withWorker ? startWorkers(runtime) : undefined;
          try {
            const started = await startBackfill(runtime, {
              account: options.account,
              stream,
              from,
              to,
              refetch: options.refetch,
            });
            const title = `backfill ${options.account} ${stream} ${formatInstant(from)} .. ${formatInstant(to)}`;
            const account = await runtime.accounts.get(options.account);
            await watchWindows(runtime, started, {
              title,
              inProcessWorker: Boolean(workers),
              record: { accountId: account.id, by: 'ledgerline backfill' },
            });
            // As after the nightly sync: the trades just read imply prices (idempotent).
            await refreshAccountTradePrices(runtime, account.id);
            // Exports planned on a table just filled would be planned for one row (analyze-histories.ts).
            await analyzeHistories(runtime.pool);
            succeeded = !process.exitCode;
          } finally {
            await workers?.close();
            await runtime.close();
            settleWorkerLog(logFile, succeeded);
          }
        },
        {
          // Every argument is checked before a store is asked anything, or written or enqueued.
          input: () => ({
            stream: parseStreamChoice(options.stream),
            from: parseInstant('--from', options.from),
            to: options.to === undefined ? Date.now() : parseInstant('--to', options.to),
          }),
        },
      ),
    );
}
