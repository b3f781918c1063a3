import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { REPORTS } from '../../src/export/reports/index.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { replayPeriod } from './replay/period-replay.ts';
import { buildWorld, exportRows as exportFile, koinlyFile, WALLETS, type World } from './replay/tax-tool-world.ts';
import { COINTRACKING_RULES, KOINLY_RULES, type ToolRules } from './replay/tool-balance-rules.ts';

/**
 * Issues 26 and 35: the demo account's year, and each of its months, exported to Koinly and
 * CoinTracking and replayed coin by coin as each tool computes balances
 * (replay/tool-balance-rules.ts, written from the tools' documentation), against the exchange's
 * own records (replay/tax-tool-world.ts). Four wallets: spot, futures, margin and P2P (Koinly: a
 * file each, `koinly`, `koinly-futures`, `koinly-margin`, `koinly-p2p`; CoinTracking: one file,
 * the Exchange column naming the wallet). Per wallet and coin the replayed change equals the
 * exchange's change, the running balance from the manifest's opening balances never goes below
 * zero, spot and margin close at the exchange's running balances, every record of the period is
 * in exactly one row (nothing left out), and every move between spot and another wallet is a pair
 * the tool matches, on the wallet the exchange names (replay/period-replay.ts).
 * A last period from the year's start to the simulator's now ends at the exchange's balances.
 */
const db = useTestDatabase('taxreplay');
const NOW = Date.UTC(2026, 9, 15, 12, 0, 0);
const YEAR = { from: '2025-10-01', to: '2026-09-30' };
const TO_NOW = { from: YEAR.from, to: '2026-10-15' };
const TOOLS: readonly ToolRules[] = [KOINLY_RULES, COINTRACKING_RULES];

// The rows of each Koinly file's March (seed 42) stay above these.
const MARCH_AT_LEAST: Record<string, number> = {
  koinly: 100,
  'koinly-futures': 50,
  'koinly-margin': 10,
  'koinly-p2p': 3,
};

let world: World;
let dir: string;

const utc = (day: string) => DateTime.fromISO(day, { zone: 'UTC' }).toMillis();
const exportRows = (report: string, from: string, to: string) =>
  exportFile(db.url, world.accountId, dir, report, from, to);
const replayOne = (rules: ToolRules, from: string, to: string) => replayPeriod(world, db.url, dir, rules, from, to);

beforeAll(async () => {
  world = await buildWorld(db.url, NOW);
  dir = await mkdtemp(path.join(tmpdir(), 'll-tax-replay-'));
}, 120_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the tax-tool files replayed as each tool computes balances', () => {
  it('has a year of demo data with BGB fees, moves to every wallet and months starting after the first record', () => {
    const { spot } = world.records;
    expect(spot[0]!.ts).toBeGreaterThan(utc(YEAR.from));
    expect(spot.filter((r) => r.transfer).length).toBeGreaterThan(200);
    const sides = [...world.otherSide.values()];
    for (const w of ['futures', 'margin', 'p2p'] as const)
      expect(sides.filter((s) => s === w).length, `spot moves to ${w}`).toBeGreaterThan(30);
    expect(world.records.margin.length).toBeGreaterThan(300);
    expect(world.records.p2p.length).toBeGreaterThan(50);
  });

  it('per wallet and coin, the year and each month replay to the exchange change, never below zero, every record once', async () => {
    const figures: string[] = [];
    for (const rules of TOOLS) {
      const year = await replayOne(rules, YEAR.from, YEAR.to);
      for (const w of WALLETS) {
        for (const [coin, f] of [...year[w]].sort(([a], [b]) => (a < b ? -1 : 1))) {
          figures.push([rules.tool, w, coin, f.exchange, f.replayed, f.lowest].join(' | '));
        }
      }
      for (
        let month = DateTime.fromISO(YEAR.from, { zone: 'UTC' });
        month < DateTime.fromISO(YEAR.to, { zone: 'UTC' });
        month = month.plus({ months: 1 })
      ) {
        await replayOne(rules, month.toISODate()!, month.endOf('month').toISODate()!);
      }
      // From before the account's first record to the simulator's now: each wallet ends at the exchange's balance.
      const all = await replayOne(rules, TO_NOW.from, TO_NOW.to);
      expect(world.records.futures[0]!.ts).toBeGreaterThan(utc(TO_NOW.from));
      for (const [coin, balance] of world.futuresNow) {
        expect(all.futures.get(coin)?.closing.toString() ?? '0', `${rules.tool} futures ${coin} now`).toBe(
          balance.toString(),
        );
      }
      for (const [coin, f] of all.futures) expect(f.closing.equals(world.futuresNow.get(coin) ?? 0), coin).toBe(true);
    }
    // The figures of the closing note (tool | wallet | coin | exchange change | replayed change | lowest running balance).
    console.log(['tool | wallet | coin | exchange | replayed | lowest', ...figures].join('\n'));
  }, 900_000);

  it("Koinly's TxHash: never empty, never shared in a file, the same row with the same hash in a later export", async () => {
    for (const report of WALLETS.map(koinlyFile)) {
      const year = await exportRows(report, YEAR.from, YEAR.to);
      const hashes = year.rows.map((r) => r.TxHash!);
      expect(hashes.length, report).toBeGreaterThan(report === 'koinly-p2p' ? 50 : 100);
      expect(hashes.filter((h) => h === '')).toEqual([]);
      expect(hashes.length - new Set(hashes).size).toBe(0);
      const byHash = new Map(year.rows.map((r) => [r.TxHash!, r]));
      const march = await exportRows(report, '2026-03-01', '2026-03-31');
      // March with seed 42: spot MARCH_SPOT rows, the other wallets fewer (futures 77: its moves with spot).
      expect(march.rows.length, report).toBeGreaterThan(MARCH_AT_LEAST[report]!);
      for (const row of march.rows) expect(byHash.get(row.TxHash!), row.TxHash).toEqual(row);
    }
  }, 180_000);

  it('no CSV report has a cell a spreadsheet would take for a number of 16 digits or more', async () => {
    const bare = /^[+-]?\d{16,}$/;
    const WITH_IDS = [
      'spot-ledger',
      'futures-pnl',
      'broker-transfers',
      'koinly',
      'koinly-futures',
      'koinly-margin',
      'koinly-p2p',
      'futures-ledger',
      'margin-ledger',
      'p2p-ledger',
      'cointracking',
      'realized-gains',
      'income',
    ];
    let scanned = 0;
    for (const report of REPORTS.filter((r) => r.textFile === undefined)) {
      const { cells } = await exportRows(report.name, YEAR.from, YEAR.to);
      // The reports whose ids are checked here must have rows (a report of a stream this test does not seed may not).
      if (WITH_IDS.includes(report.name)) expect(cells.length, report.name).toBeGreaterThan(0);
      for (const row of cells) {
        for (const [i, cell] of row.entries()) {
          if (bare.test(cell)) expect.fail(`${report.name}: column ${i} holds ${cell}`);
          scanned++;
        }
      }
    }
    expect(scanned).toBeGreaterThan(100_000);
  }, 300_000);
});
