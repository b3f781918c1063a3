import path from 'node:path';

import { DateTime } from 'luxon';
import type pg from 'pg';

import { createRuntime } from '../app/create-runtime.ts';
import { startBackfill } from '../app/services/backfill.ts';
import { startWorkers } from '../app/workers.ts';
import { watchWindows } from '../cli/watch-windows.ts';
import type { Config } from '../config/config.ts';
import { databaseName } from '../db/ensure-database.ts';
import { migrateDatabase } from '../db/migrations.ts';
import type { ReconciliationReport } from '../reconcile/index.ts';
import { spawnSimulator } from '../simulator/child-simulator.ts';
import { demoReconciliation } from './demo-checks.ts';
import { exportDemoReports, type WrittenReport } from './demo-exports.ts';
import { loadDemoPrices } from './demo-prices.ts';

const DAY = 86_400_000;

export interface DemoSummary {
  account: string;
  rows: Record<string, number>;
  seconds: number;
  /** Seconds per phase, in order (the machine's load shows in them: the demo prints them). */
  phases: [string, number][];
  reconciliation: ReconciliationReport;
  reports: WrittenReport[];
}

/**
 * The main job, end to end, against the bundled simulator: migrate, start the
 * simulator (rate limits on), register its demo account, run workers in this
 * process, backfill every stream, reconcile, export the reports.
 *
 * Re-runnable: the simulator's history is anchored to the start of the UTC
 * day and the account is named after that day, so a second run the same day
 * finds everything already stored (and re-reads only the newest window),
 * while a run on another day gets an account of its own.
 */
export async function runDemo(config: Config, log: (line: string) => void): Promise<DemoSummary> {
  const started = Date.now();
  const phases: [string, number][] = [];
  let mark = started;
  const phase = (name: string) => {
    const now = Date.now();
    phases.push([name, (now - mark) / 1000]);
    mark = now;
  };
  const applied = await migrateDatabase(config.databaseUrl);
  log(
    `database ${databaseName(config.databaseUrl)}: ${applied.length ? `applied ${applied.join(', ')}` : 'up to date'}`,
  );

  const sim = await spawnSimulator(['--port', '0', '--seed', '42', '--scale', 'demo', '--anchor', 'today']);
  log(`exchange simulator at ${sim.url} (rate limits on, as the real exchange)`);
  const runtime = createRuntime(config);
  const workers = startWorkers(runtime);
  try {
    const day = DateTime.utc().startOf('day');
    const name = `demo-${day.toFormat('yyyyMMdd')}`;
    const account = await runtime.accounts.upsert({
      name,
      baseUrl: sim.url,
      ...sim.demo,
      isBrokerParent: true,
      isUnifiedAccount: true,
    });
    log(`account ${name} registered (uid ${account.uid}, key ${account.apiKey})`);

    phase('set-up');
    const now = Date.now();
    const from = day.toMillis() - 400 * DAY;
    const backfill = await startBackfill(runtime, { account: name, stream: 'all', from, to: now, now });
    await watchWindows(runtime, backfill, { title: `backfill ${name} all streams`, inProcessWorker: true });

    phase('backfill');
    const prices = await loadDemoPrices(
      runtime.pool,
      config.exportDir,
      account.id,
      DateTime.fromMillis(from).toUTC(),
      day,
    );
    log(
      `prices: ${prices.imported} daily closes imported from ${path.relative(process.cwd(), prices.file)} ` +
        `(source simulator), ${prices.tradePoints} points implied by the account's trades`,
    );
    phase('prices');
    log(
      'reconciling (coverage, re-counts against the exchange: every positions and transfers window, the spot windows ' +
        'read before they settled; spot balance continuity anchored at the exchange; paging) and exporting',
    );
    // The checks run side by side: each is timed from its own start.
    const checkStarted = new Map<string, number>();
    const reconciled = demoReconciliation(runtime, account.id, (check, _index, _total, result) => {
      if (!result) checkStarted.set(check, Date.now());
      else {
        const seconds = (Date.now() - (checkStarted.get(check) ?? Date.now())) / 1000;
        log(`  ${check} ${result.passed ? 'passed' : 'FAILED'} after ${seconds.toFixed(1)} s`);
      }
    });
    // The exports read only the database, while the reconciliation mostly waits for its turns in the
    // exchange's 1/s spot budget: side by side, neither waits for the other. The files are written
    // whatever the checks say, as before; a failed check still fails the demo (main.ts).
    const exportsStarted = Date.now();
    const exported = exportDemoReports(config, account, day).then((written) => {
      log(`  exports written after ${((Date.now() - exportsStarted) / 1000).toFixed(1)} s`);
      return written;
    });
    const [reconciliation, reports] = await Promise.all([reconciled, exported]);
    phase('reconcile and exports');
    const rows = await rowCounts(runtime.pool, account.id);
    return { account: name, rows, seconds: (Date.now() - started) / 1000, phases, reconciliation, reports };
  } finally {
    await workers.close();
    await runtime.close();
    await sim.stop();
  }
}

async function rowCounts(pool: pg.Pool, accountId: string): Promise<Record<string, number>> {
  const result = await pool.query<{ positions: number; spot: number; transfers: number; 'futures-ledger': number }>(
    `SELECT (SELECT count(*) FROM futures_position WHERE account_id = $1)::int AS positions,
            (SELECT count(*) FROM spot_record WHERE account_id = $1)::int AS spot,
            (SELECT count(*) FROM broker_transfer WHERE account_id = $1)::int AS transfers,
            (SELECT count(*) FROM futures_ledger_record WHERE account_id = $1)::int AS "futures-ledger"`,
    [accountId],
  );
  return { ...result.rows[0]! };
}
