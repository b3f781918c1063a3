import type { Command } from 'commander';

import { createRuntime } from '../../../jobs/composition/create-runtime.ts';
import { startWorkers } from '../../../jobs/composition/workers.ts';
import { refreshAccountTradePrices } from '../../app/services/after-sync.ts';
import { planAndEnqueueSync } from '../../app/services/plan-and-enqueue-sync.ts';
import { parseStreamChoice, STREAMS } from '../../streams/registry.ts';
import { runTool } from '../run-tool.ts';
import { watchWindows } from '../watch-windows.ts';
import { settleWorkerLog, workerLogsToFileWhileBarsDraw } from '../worker-log-file.ts';

export function registerSyncCommand(program: Command): void {
  program
    .command('sync')
    .description(
      'incremental sync now: from the end of covered data (less the lookback) to now, and every earlier window that never finished, with progress',
    )
    .requiredOption('--account <name>', 'a registered account')
    .option('--stream <stream>', `${STREAMS.join(', ')} or all`, 'all')
    .option('--with-worker', 'process the jobs in this process too (no separate `ledgerline worker` needed)')
    .action((options: { account: string; stream: string; withWorker?: boolean }) =>
      runTool(async (config) => {
        const stream = parseStreamChoice(options.stream);
        const runtime = createRuntime(config);
        const logFile = options.withWorker ? workerLogsToFileWhileBarsDraw(config, 'sync') : undefined;
        let succeeded = false;
        const workers = options.withWorker ? startWorkers(runtime) : undefined;
        try {
          const account = await runtime.accounts.get(options.account);
          const started = await planAndEnqueueSync(runtime, account, { stream });
          await watchWindows(runtime, started, {
            title: `sync ${options.account} ${stream}`,
            inProcessWorker: Boolean(workers),
            record: { accountId: account.id, by: 'ledgerline sync' },
          });
          // As after the nightly sync: the trades just read imply prices (idempotent).
          await refreshAccountTradePrices(runtime, account.id);
          succeeded = !process.exitCode;
        } finally {
          await workers?.close();
          await runtime.close();
          settleWorkerLog(logFile, succeeded);
        }
      }),
    );
}
