import type { Command } from 'commander';

import { listRuns, type RunSummary } from '../../app/services/list-runs.ts';
import { createPool } from '../../db/pg-connections.ts';
import { ValidationError } from '../../errors/index.ts';
import { formatInstant } from '../../ingest/time-arguments.ts';
import { runTool } from '../run-tool.ts';

const DEFAULT_LIMIT = 20;

function parseLimit(value: string | undefined): number {
  if (value === undefined) return DEFAULT_LIMIT;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 1000)
    throw new ValidationError('--limit', 'must be a whole number from 1 to 1000', value);
  return n;
}

/** What the run did, in a few words: rows, windows, records revised, checks. */
function outcome(run: RunSummary): string {
  const parts: string[] = [];
  if (run.rows !== null) parts.push(`${run.rows} rows`);
  if (run.windows !== null)
    parts.push(`${run.windows} windows${run.failedWindows ? ` (${run.failedWindows} failed)` : ''}`);
  if (run.checksPassed !== null) parts.push(`${run.checksPassed} checks passed, ${run.checksFailed ?? 0} failed`);
  if (typeof run.detail.revised === 'number' && run.detail.revised > 0) {
    parts.push(`${run.detail.revised} records revised`);
  }
  if (typeof run.detail.report === 'string') parts.push(run.detail.report);
  return parts.join(', ');
}

/** A run stopped by Ctrl-C is stored as failed with `detail.interrupted` (record-run.ts): shown as interrupted. */
const shownStatus = (run: RunSummary): string => (run.detail.interrupted === true ? 'interrupted' : run.status);

function printRuns(runs: RunSummary[]): void {
  if (runs.length === 0) {
    console.log('no runs recorded yet (the worker records each sync, reconciliation and export it finishes)');
    return;
  }
  for (const run of runs) {
    const seconds = (run.durationMs / 1000).toFixed(1);
    console.log(
      `${formatInstant(Date.parse(run.finishedAt))}  ${run.kind.padEnd(14)} ${shownStatus(run).padEnd(11)} ` +
        `${(run.account ?? '-').padEnd(16)} ${seconds.padStart(7)} s  ${outcome(run)}`,
    );
    for (const failure of run.failures) console.log(`    ${failure}`);
  }
}

export function registerRunsCommand(program: Command): void {
  program
    .command('runs')
    .description('the last syncs, reconciliations and exports: times, rows, checks and failures, newest first')
    .option('--account <name>', 'only this account')
    .option('--limit <n>', `how many runs (default ${DEFAULT_LIMIT})`)
    .option('--json', 'one JSON object on stdout: { runs: [...] }')
    .action((options: { account?: string; limit?: string; json?: boolean }) =>
      runTool(async (config) => {
        const limit = parseLimit(options.limit);
        const pool = createPool({ connectionString: config.databaseUrl, max: 1 });
        try {
          let accountId: string | undefined;
          if (options.account !== undefined) {
            const found = await pool.query<{ id: string }>('SELECT id FROM account WHERE name = $1', [options.account]);
            if (found.rows.length === 0)
              throw new ValidationError('--account', 'must name a registered account', options.account);
            accountId = found.rows[0]!.id;
          }
          const runs = await listRuns(pool, { accountId, limit });
          if (options.json) console.log(JSON.stringify({ runs }));
          else printRuns(runs);
        } finally {
          await pool.end();
        }
      }),
    );
}
