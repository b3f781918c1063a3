import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, expect } from 'vitest';

import { parseExportRequest } from '../../../src/export/export-request.ts';
import { type ExportedFile, exportToFile } from '../../../src/export/export-to-file.ts';
import { REPORTS } from '../../../src/export/reports/index.ts';
import { FUTURES_WALLETS } from '../../../src/simulator/data/futures-wallets.ts';
import { FUTURES_MARKETS } from '../../../src/simulator/data/markets.ts';
import { startSimulator } from '../../../src/simulator/index.ts';
import { useTestDatabase } from '../../helpers/test-database.ts';
import { insertAccount, insertTruth, parseCsv, type Truth } from '../seed.ts';

/**
 * The demo account's history (seed 42, the simulator's now 2026-10-15 12:00 UTC) written into a test
 * database as ingestion would store it, with the simulator's truth kept beside it to judge the
 * exports against.
 */
export const NOW = Date.UTC(2026, 9, 15, 12, 0, 0);

export type Row = Record<string, string>;

export interface DemoYear {
  readonly truth: Truth & { futuresLedger: Row[] };
  /** The futures wallets' balances at the simulator's now, per margin coin. */
  readonly futuresNow: Map<string, Decimal>;
  /** The ids of the spot transfers whose other side is a margin account or the P2P wallet. */
  readonly otherWalletMoves: Set<string>;
  /** Exports one report of the account for a period and reads its rows back. */
  exportRows(report: string, from: string, to: string): Promise<ExportedRows>;
}

export interface ExportedRows {
  readonly rows: Row[];
  readonly cells: string[][];
  readonly manifest: ExportedFile['manifest'];
}

export const zero = () => new Decimal(0);
export const add = (map: Map<string, Decimal>, coin: string, value: Decimal.Value) =>
  map.set(coin, (map.get(coin) ?? zero()).plus(value));
// The exchange's order of records: time, then the id's numeric order.
const exchangeOrder = (a: Row, b: Row) =>
  Number(a.ts) - Number(b.ts) || a.id!.length - b.id!.length || (a.id! < b.id! ? -1 : a.id! > b.id! ? 1 : 0);

/** Seeds the calling test file's own database with the demo account before its tests. */
export function useDemoYear(): DemoYear {
  const db = useTestDatabase('taxreplay');
  let truth: DemoYear['truth'] | undefined;
  let futuresNow: Map<string, Decimal> | undefined;
  let otherWalletMoves: Set<string> | undefined;
  let accountId: string;
  let dir: string;

  beforeAll(async () => {
    const sim = await startSimulator({ scale: 'demo', now: NOW, seed: 42, rateLimits: { enabled: false } });
    let seeded: DemoYear['truth'];
    try {
      const productTypeOfCoin = new Map(FUTURES_WALLETS.map((w) => [w.marginCoin, w.productType]));
      seeded = {
        spot: sim.truth('spot').map((r) => ({ ...r })),
        positions: sim.truth('positions').map((r) => ({ ...r })),
        transfers: sim.truth('transfers').map((r) => ({ ...r })),
        futuresLedger: sim
          .truth('futures-ledger')
          .map((r) => ({ ...r, productType: productTypeOfCoin.get(r.marginCoin)! })),
      };
      futuresNow = new Map();
      for (const b of sim.futuresBalances()) add(futuresNow, b.marginCoin, b.balance);
      // Each margin or P2P transfer is a spot transfer's other side: same instant, coin and quantity.
      const moveKey = (ts: string, coin: string, amount: string) =>
        `${ts}|${coin}|${new Decimal(amount).abs().toString()}`;
      const otherSides = new Map<string, number>();
      const count = (k: string) => otherSides.set(k, (otherSides.get(k) ?? 0) + 1);
      for (const r of sim.truth('margin-ledger'))
        if (/^transfer_(in|out)$/.test(r.marginTaxType)) count(moveKey(r.ts, r.coin, r.amount));
      for (const r of sim.truth('p2p-ledger'))
        if (/^transfer_(in|out)$/.test(r.p2pTaxType)) count(moveKey(r.ts, r.coin, r.total));
      otherWalletMoves = new Set();
      for (const r of seeded.spot.filter((x) => /^Transfer (in|out)$/.test(x.spotTaxType!))) {
        const k = moveKey(r.ts!, r.coin!, r.amount!);
        if ((otherSides.get(k) ?? 0) === 0) continue;
        otherSides.set(k, otherSides.get(k)! - 1);
        otherWalletMoves.add(r.id!);
      }
      expect(
        [...otherSides.values()].filter((n) => n > 0),
        'margin and P2P transfers without a spot side',
      ).toEqual([]);
    } finally {
      await sim.close();
    }
    seeded.spot.sort(exchangeOrder);
    truth = seeded;
    accountId = await insertAccount(db.url, 'demo');
    const productType = new Map(FUTURES_MARKETS.map((m) => [m.symbol, m.productType]));
    await insertTruth(db.url, accountId, truth, (symbol) => productType.get(symbol)!);
    dir = await mkdtemp(path.join(tmpdir(), 'll-tax-replay-'));
  }, 120_000);

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the demo year is seeded only inside tests and hooks');
    return value;
  };
  return {
    get truth() {
      return ready(truth);
    },
    get futuresNow() {
      return ready(futuresNow);
    },
    get otherWalletMoves() {
      return ready(otherWalletMoves);
    },
    async exportRows(report, from, to) {
      const request = parseExportRequest({ report, accountId, from, to, tz: 'UTC' });
      const file: ExportedFile = await exportToFile({
        databaseUrl: db.url,
        request,
        account: { id: accountId, name: 'demo' },
        csvPath: path.join(
          dir,
          `${report}-${from}-${to}.${REPORTS.find((r) => r.name === report)?.textFile ? 'txt' : 'csv'}`,
        ),
      });
      const [header, ...cells] = parseCsv(await readFile(file.csvPath, 'utf8'));
      const rows = cells.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i] ?? ''])) as Row);
      return { rows, cells, manifest: file.manifest };
    },
  };
}
