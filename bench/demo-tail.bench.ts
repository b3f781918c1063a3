/**
 * The demo's work after its last exchange request, replayed on a database a demo filled: every file
 * of the demo (its export threads, its groups, its order), the synthetic accountant's import once the
 * gains walks have read the supplied tables, the "after" summaries, then the import withdrawn, as
 * run-demo.ts does once the futures ledger is read. Without the 80 s of reading before it, the
 * export side's wall and CPU (every thread of this process; Postgres's not) can be compared run
 * against run on a shared machine, several rounds side by side. Each round writes into a new
 * temporary folder (nothing is kept as "unchanged"), whose files' digest is printed: equal digests
 * across rounds and commits mean the same figures.
 *
 *   DEMO_DATABASE=ledgerline_demo_x npm run demo                     (once: fills the database)
 *   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/ledgerline_demo_x npm run bench:demo-tail
 *   (BENCH_ROUNDS=5 for more rounds)
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';

import { DateTime } from 'luxon';
import pg from 'pg';

import type { AccountSummary } from '../src/accounts/account-service.ts';
import { getConfig } from '../src/config/config.ts';
import { forgetSyntheticAccountant, supplySyntheticAccountant } from '../src/demo/demo-accountant.ts';
import { exportAfterAccountant } from '../src/demo/demo-after-accountant.ts';
import { DemoExportWorkers } from '../src/demo/demo-export-workers.ts';
import { DemoExports } from '../src/demo/demo-exports.ts';
import { DEMO_ACCOUNT } from '../src/demo/run-demo.ts';
import { STREAMS } from '../src/streams/registry.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** The threads load their modules while the demo's backfill reads: not part of the work after it. */
const THREADS_LOADED_MS = 3_000;

interface Round {
  round: number;
  load: number;
  wallS: number;
  cpuS: number;
  files: number;
  digest: string;
}

/** One digest of every file written under `dir` (names without the account's id, contents). */
async function digestOf(dir: string): Promise<{ files: number; digest: string }> {
  const names = (await readdir(dir, { recursive: true })).filter((n) => /\.(csv|beancount)$/.test(n)).sort();
  const hash = createHash('sha256');
  for (const name of names) {
    hash.update(name.replace(/[0-9a-f-]{36}\//, ''));
    hash.update(await readFile(path.join(dir, name)));
  }
  return { files: names.length, digest: hash.digest('hex').slice(0, 16) };
}

type DemoAccount = Pick<AccountSummary, 'id' | 'name' | 'createdAt'>;

async function round(n: number, pool: pg.Pool, account: DemoAccount, day: DateTime): Promise<Round> {
  const exportDir = await mkdtemp(path.join(tmpdir(), 'ledgerline-demo-tail-'));
  const config = { ...getConfig(), exportDir };
  const workers = new DemoExportWorkers();
  try {
    await new Promise((resolve) => setTimeout(resolve, THREADS_LOADED_MS));
    const load = loadavg()[0]!;
    const started = performance.now();
    const cpu = process.cpuUsage();
    const exports = new DemoExports(config, account, day, workers, pool);
    await exports.addRulesFiles();
    exports.startReady(new Set(STREAMS), true);
    await exports.gainsInputsRead();
    await supplySyntheticAccountant(pool, exportDir, account.id);
    await exportAfterAccountant(exportDir, exports, exports.rulesSummaries(), () => exports.gainsFiles());
    await exports.written();
    await forgetSyntheticAccountant(pool, account.id);
    const used = process.cpuUsage(cpu);
    const wallS = (performance.now() - started) / 1000;
    return { round: n, load, wallS, cpuS: (used.user + used.system) / 1e6, ...(await digestOf(exportDir)) };
  } finally {
    await workers.close();
    await rm(exportDir, { recursive: true, force: true });
  }
}

const pool = new pg.Pool({ connectionString: getConfig().databaseUrl });
try {
  const { rows } = await pool.query<DemoAccount>(
    `SELECT id::text AS id, name, created_at AS "createdAt" FROM account WHERE name = $1`,
    [DEMO_ACCOUNT],
  );
  const account = rows[0];
  if (account === undefined) throw new Error(`no account ${DEMO_ACCOUNT}: run the demo on this database first`);
  const day = DateTime.fromJSDate(account.createdAt).toUTC().startOf('day');
  const rounds: Round[] = [];
  console.log('round  load   wall s   cpu s  files  digest');
  for (let n = 1; n <= ROUNDS; n++) {
    const r = await round(n, pool, account, day);
    rounds.push(r);
    console.log(
      `${String(r.round).padStart(5)}  ${r.load.toFixed(1).padStart(4)}  ${r.wallS.toFixed(2).padStart(7)}  ` +
        `${r.cpuS.toFixed(2).padStart(6)}  ${String(r.files).padStart(5)}  ${r.digest}`,
    );
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(
    JSON.stringify({
      bench: 'demo-tail',
      rounds: rounds.length,
      medianWallS: median(rounds.map((r) => r.wallS)),
      medianCpuS: median(rounds.map((r) => r.cpuS)),
      digests: [...new Set(rounds.map((r) => r.digest))],
      results: rounds,
    }),
  );
} finally {
  await pool.end();
}
