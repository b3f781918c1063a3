import path from 'node:path';

import { DateTime } from 'luxon';
import type pg from 'pg';

import { createRuntime } from '../../jobs/composition/create-runtime.ts';
import { startWorkers } from '../../jobs/composition/workers.ts';
import { startBackfill } from '../app/services/backfill.ts';
import { recordReconciliationRun } from '../app/services/record-run.ts';
import { watchWindows } from '../cli/watch-windows.ts';
import type { Config } from '../config/config.ts';
import { databaseName } from '../db/ensure-database.ts';
import { migrateDatabase } from '../db/migrations.ts';
import { analyzeHistories } from '../ingest/analyze-histories.ts';
import type { ReconciliationReport } from '../reconcile/index.ts';
import { spawnSimulator } from '../simulator/child-simulator.ts';
import { streamDefinition, STREAMS } from '../streams/registry.ts';
import { type DemoAccountant, forgetSyntheticAccountant, supplySyntheticAccountant } from './demo-accountant.ts';
import { exportAfterAccountant } from './demo-after-accountant.ts';
import { type DemoBound, demoBound, requestsSent } from './demo-bound.ts';
import { demoReconciliation } from './demo-checks.ts';
import { EarlyWork } from './demo-early-work.ts';
import { DemoExportWorkers } from './demo-export-workers.ts';
import { DemoExports, type WrittenReport } from './demo-exports.ts';
import { loadSyntheticFiat, SYNTHETIC_FIAT_SOURCE } from './demo-fiat.ts';
import { loadDemoPrices } from './demo-prices.ts';
import { registeredAt } from './demo-registered-at.ts';

const DAY = 86_400_000;

/** The demo's account: one name, so that the README's commands name it as written. */
export const DEMO_ACCOUNT = 'demo';

export interface DemoSummary {
  account: string;
  rows: Record<string, number>;
  seconds: number;
  /** The shortest time the exchange's budgets allow for the demo's requests (demo-bound.ts). */
  bound: DemoBound;
  /** Seconds per phase, in order (the machine's load shows in them: the demo prints them). */
  phases: [string, number][];
  reconciliation: ReconciliationReport;
  reports: WrittenReport[];
  /** The SYNTHETIC accountant's costs and proceeds imported after the exports, and the summaries again. */
  accountant: { supplied: DemoAccountant; after: WrittenReport[] };
  /**
   * A run on a database an earlier run filled: what it read and wrote again (its wall time against a
   * first run's bound says nothing, so no ratio is printed for it).
   */
  rerun?: { windows: number; requests: number; exported: number; kept: number };
}

/**
 * The main job, end to end, against the bundled simulator: migrate, start the
 * simulator (rate limits on), register its demo account, run workers in this
 * process, backfill every stream, reconcile, export the reports.
 *
 * Re-runnable: the simulator's history is anchored to the start of the UTC
 * day the account `demo` was first registered, so any later run finds
 * everything already stored (and re-reads only the newest window).
 */
export async function runDemo(
  config: Config,
  log: (line: string) => void,
  options: {
    /**
     * Called with the summary while the simulator and the workers still run (`--serve`): they
     * stop when it resolves.
     */
    whileRunning?: (summary: DemoSummary) => Promise<void>;
    /** The simulator's data: `demo`, or `tiny` for a test that runs the demo whole. */
    scale?: 'demo' | 'tiny';
    /** Where the export threads log (demo-log-file.ts); default: stderr. */
    logFile?: string;
  } = {},
): Promise<DemoSummary> {
  const started = Date.now();
  const sentBefore = await requestsSent();
  const phases: [string, number][] = [];
  let mark = started;
  const phase = (name: string) => {
    const now = Date.now();
    phases.push([name, (now - mark) / 1000]);
    mark = now;
  };
  // The simulator starts beside the migrations (each takes about a second): the day its history is
  // laid out from is the day the account was first registered, read before migrating from the
  // database an earlier run left; a new database has none, and the history starts today.
  const registered = await registeredAt(config.databaseUrl, DEMO_ACCOUNT);
  const day = DateTime.fromJSDate(registered ?? new Date())
    .toUTC()
    .startOf('day');
  const simulator = spawnSimulator([
    ...['--port', '0', '--seed', '42', '--scale', options.scale ?? 'demo', '--anchor', String(day.toMillis())],
    // A client whose budgets are scaled (EXCHANGE_RATE_FACTOR) meets an exchange scaled alike.
    ...['--rate-limit-factor', String(config.exchangeRateFactor)],
  ]);
  const [migrated, spawned] = await Promise.allSettled([migrateDatabase(config.databaseUrl), simulator]);
  if (migrated.status === 'rejected' || spawned.status === 'rejected') {
    if (spawned.status === 'fulfilled') await spawned.value.stop();
    throw migrated.status === 'rejected' ? migrated.reason : (spawned as PromiseRejectedResult).reason;
  }
  const applied = migrated.value;
  const sim = spawned.value;
  log(
    `database ${databaseName(config.databaseUrl)}: ${applied.length ? `applied ${applied.join(', ')}` : 'up to date'}`,
  );
  const runtime = createRuntime(config);
  log(`exchange simulator at ${sim.url} (rate limits on, as the real exchange)`);
  const workers = startWorkers(runtime);
  // The export threads load their modules while the backfill waits on the exchange.
  const exportWorkers = new DemoExportWorkers(undefined, options.logFile);
  try {
    const name = DEMO_ACCOUNT;
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
    // What needs no history: forgetting the synthetic costs and proceeds a re-run imported last time
    // ("before" is as read), and the fiat series, loaded while the backfill reads.
    await forgetSyntheticAccountant(runtime.pool, account.id);
    const fiatLoaded = loadSyntheticFiat(runtime.pool, config.exportDir, DateTime.fromMillis(from).toUTC(), day);
    fiatLoaded.catch(() => undefined); // awaited after the backfill, which reports its failure
    const exports = new DemoExports(config, account, day, exportWorkers, runtime.pool);
    // The backfill waits on the exchange's budgets, not on the machine: each history's files are
    // written as soon as it is complete, the prices loaded once the spot history is (its trades
    // imply prices). Their lines wait for the progress bars to end.
    const early = new EarlyWork(runtime.pool, exports, async () => {
      await fiatLoaded; // a file valued in pounds or euros reads these too
      const prices = await loadDemoPrices(
        runtime.pool,
        config.exportDir,
        account.id,
        DateTime.fromMillis(from).toUTC(),
        day,
      );
      return (
        `prices: ${prices.imported} daily closes imported from ${path.relative(process.cwd(), prices.file)} ` +
        `(source simulator), ${prices.tradePoints} points implied by the account's trades; coins held without any ` +
        `price source: ${prices.withoutSource.length === 0 ? 'none' : prices.withoutSource.join(', ')}`
      );
    });
    const backfill = await startBackfill(runtime, { account: name, stream: 'all', from, to: now, now });
    // Recorded as a run, as the worker records its syncs: `ledgerline runs` and the metrics see it.
    await watchWindows(runtime, backfill, {
      title: `backfill ${name} all streams`,
      inProcessWorker: true,
      record: { accountId: account.id, by: 'npm run demo' },
      onProgress: (progress) => early.progressed(progress),
    });

    // The reports' plans need the statistics of tables filled a minute ago (analyze-histories.ts).
    await analyzeHistories(runtime.pool);
    const during = await early.finished();
    const fiat = await fiatLoaded;
    phase('backfill');
    for (const line of during.lines) log(line);
    log(
      `fiat: ${fiat.rows} daily USDT->GBP (London dates) and USDT->EUR (Berlin dates) rates imported from ` +
        `${fiat.files.map((f) => path.relative(process.cwd(), f)).join(' and ')} ` +
        `(SYNTHETIC, source ${SYNTHETIC_FIAT_SOURCE}: stands in for a downloaded series)`,
    );
    log(`exports: ${during.filesStarted} files started while the backfill was still reading other histories`);
    log(
      'reconciling (coverage; window re-counts, from the marks of the reads just made, asking the exchange where they ' +
        'disagree; spot balance continuity anchored at the exchange; paging) and exporting',
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
    await exports.addRulesFiles();
    exports.startReady(new Set(STREAMS), true);
    const exported = (async () => {
      // What an accountant adds: the costs of the coins moved in and the P2P sells' proceeds (SYNTHETIC
      // here, demo-accountant-rule.ts), imported once every gains walk has read those tables (the files
      // "before" stay as read), then the filing summaries again with them, beside the other files.
      await exports.gainsInputsRead();
      const supplied = await supplySyntheticAccountant(runtime.pool, config.exportDir, account.id);
      const after = await exportAfterAccountant(config.exportDir, exports, exports.rulesSummaries(), () =>
        exports.gainsFiles(),
      );
      const written = await exports.written();
      // The database keeps the figures as read (issue 42 item 9): later exports of `demo`, and checks run
      // on it, show the "before" figures; the synthetic files stay in EXPORT_DIR to import again.
      await forgetSyntheticAccountant(runtime.pool, account.id);
      log(
        `  exports written, with the synthetic accountant's costs and proceeds imported and the summaries ` +
          `re-exported, after ${((Date.now() - exportsStarted) / 1000).toFixed(1)} s`,
      );
      return { written, accountant: { supplied, after } };
    })();
    const [reconciliation, { written: reports, accountant }] = await Promise.all([reconciled, exported]);
    await recordReconciliationRun(runtime, reconciliation, 'npm run demo');
    phase('reconcile and exports');
    const rows = await rowCounts(runtime.pool, account.id);
    const seconds = (Date.now() - started) / 1000;
    const bound = await demoBound(sentBefore, config.exchangeRateFactor);
    const windowsRead = backfill.windows.filter((w) => w.status !== 'done').length;
    const rerun =
      registered === null
        ? undefined
        : {
            windows: windowsRead,
            requests: Object.values(bound.byEndpoint).reduce((a, b) => a + b, 0),
            ...exports.counts(),
          };
    const summary: DemoSummary = {
      account: name,
      rows,
      seconds,
      bound,
      phases,
      reconciliation,
      reports,
      accountant,
      ...(rerun ? { rerun } : {}),
    };
    await options.whileRunning?.(summary);
    return summary;
  } finally {
    await exportWorkers.close();
    await workers.close();
    await runtime.close();
    await sim.stop();
  }
}

/** Each history's stored rows of the account, by stream (every registered stream's table). */
async function rowCounts(pool: pg.Pool, accountId: string): Promise<Record<string, number>> {
  const counts = STREAMS.map(
    (s) => `(SELECT count(*) FROM ${streamDefinition(s).table.table} WHERE account_id = $1)::int AS "${s}"`,
  );
  const result = await pool.query<Record<string, number>>(`SELECT ${counts.join(', ')}`, [accountId]);
  return { ...result.rows[0]! };
}
