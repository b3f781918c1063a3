import type { Command } from 'commander';

import { createRuntime } from '../../../jobs/composition/create-runtime.ts';
import { assertExchangeAnswers } from '../../app/services/exchange-answers.ts';
import { recordFailedRun, recordReconciliationRun, type RunOrigin } from '../../app/services/record-run.ts';
import { parseRecountMode } from '../../reconcile/recount-mode.ts';
import type { ReconciliationReport } from '../../reconcile/report-types.ts';
import { runReconciliation } from '../../reconcile/run-reconciliation.ts';
import { EXIT } from '../exit-codes.ts';
import { printJson } from '../plain-table.ts';
import { CheckProgressView } from '../progress/check-progress-view.ts';
import { runTool } from '../run-tool.ts';

const BY: RunOrigin = 'ledgerline reconcile';

interface ReconcileOptions {
  account: string;
  recount: string;
  full?: boolean;
  json?: boolean;
}

/** `reconcile --json`: the stored report, stable field names, instants as ISO 8601 UTC. */
function reportJson(report: ReconciliationReport) {
  return {
    id: report.id,
    account: report.accountName,
    recount: report.recount,
    full: report.full,
    passed: report.passed,
    startedAt: report.startedAt.toISOString(),
    finishedAt: report.finishedAt.toISOString(),
    checks: report.checks,
  };
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
      'windows re-counted at the exchange: none, recent (finished since the last passed re-count, within 3 days), all or edge',
      'recent',
    )
    .option(
      '--full',
      'check the whole stored history (default: what was stored since the verified balance chains, as each night)',
    )
    .option('--json', 'print the report as one JSON object instead of the text')
    .action((options: ReconcileOptions) =>
      runTool(
        async (config, recount) => {
          const runtime = createRuntime(config, { poolSize: 4 });
          const progress = new CheckProgressView();
          try {
            const account = await runtime.accounts.get(options.account);
            const startedAt = new Date();
            let report: ReconciliationReport;
            try {
              // Every check but the coverage one asks the exchange: a dead one is said at once (exit 3).
              if (recount !== 'none') await assertExchangeAnswers(runtime, account);
              report = await runReconciliation(runtime, {
                accountId: account.id,
                recount,
                full: options.full ?? false,
                onCheck: (...args) => progress.update(...args),
              });
            } catch (error) {
              // A run like the worker's: a reconciliation that could not finish is a failed one.
              const run = { kind: 'reconciliation' as const, accountId: account.id, by: BY, startedAt, error };
              await recordFailedRun(runtime, run).catch(() => undefined);
              throw error;
            }
            progress.stop();
            await recordReconciliationRun(runtime, report, BY);
            if (options.json) printJson(reportJson(report));
            else {
              console.log(report.summary);
              console.log(`report ${report.id}`);
            }
            if (!report.passed) process.exitCode = EXIT.failed;
          } finally {
            progress.stop();
            await runtime.close();
          }
        },
        { input: () => parseRecountMode(options.recount) },
      ),
    );
}
