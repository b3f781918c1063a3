import type { Command } from 'commander';

import { createRuntime } from '../../app/create-runtime.ts';
import { parseRecountMode } from '../../reconcile/recount-mode.ts';
import { runReconciliation } from '../../reconcile/run-reconciliation.ts';
import { EXIT } from '../exit-codes.ts';
import { runTool } from '../run-tool.ts';

interface ReconcileOptions {
  account: string;
  recount: string;
}

export function registerReconcileCommand(program: Command): void {
  program
    .command('reconcile')
    .description(
      'check an account history: coverage without gaps, spot balance continuity, no stuck paging, window counts against the exchange',
    )
    .requiredOption('--account <name>', 'a registered account')
    .option(
      '--recount <mode>',
      'windows re-counted at the exchange: none, recent (finished in the last 3 days) or all',
      'recent',
    )
    .action((options: ReconcileOptions) =>
      runTool(async (config) => {
        const recount = parseRecountMode(options.recount);
        const runtime = createRuntime(config, { poolSize: 4 });
        try {
          const account = await runtime.accounts.get(options.account);
          const report = await runReconciliation(runtime, { accountId: account.id, recount });
          console.log(report.summary);
          console.log(`report ${report.id}`);
          if (!report.passed) process.exitCode = EXIT.failed;
        } finally {
          await runtime.close();
        }
      }),
    );
}
