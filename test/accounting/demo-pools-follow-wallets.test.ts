import { Decimal } from 'decimal.js';
import { DateTime } from 'luxon';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { GainsEvent } from '../../src/accounting/gains/gains-event.ts';
import { type UkMatch, UkMatcher } from '../../src/accounting/gains/uk-matching.ts';
import { type LotSink, walkHistory } from '../../src/accounting/gains/walk-history.ts';
import { LotEngine, type LotMatch } from '../../src/accounting/lots/lot-engine.ts';
import { memoryPriceBook } from '../../src/accounting/prices/memory-price-book.ts';
import type { PricePointInput } from '../../src/accounting/prices/price-point.ts';
import { entryTreatment } from '../../src/accounting/treatments/entry-treatment.ts';
import { treatmentOf } from '../../src/accounting/treatments/treatment-table.ts';
import type { LedgerEntry } from '../../src/booking/ledger-entry.ts';
import { readLedgerEntries } from '../../src/booking/ledger-entry-cursor.ts';
import { deGainRow } from '../../src/export/reports/de-gains.ts';
import { gainRow, UNKNOWN_COST } from '../../src/export/reports/realized-gains.ts';
import { ukGainRow } from '../../src/export/reports/uk-gains.ts';
import { FUTURES_WALLETS } from '../../src/simulator/data/futures-wallets.ts';
import { FUTURES_MARKETS } from '../../src/simulator/data/markets.ts';
import { USDT_PRICE } from '../../src/simulator/data/reference-prices.ts';
import { startSimulator } from '../../src/simulator/index.ts';
import { insertAccount, insertTruth, type Truth } from '../export/seed.ts';
import { useTestDatabase } from '../helpers/test-database.ts';

/**
 * Issue 33, item 4, and issue 35 (the gains walk includes margin and P2P), on the demo's own
 * account (seed 42, scale demo, anchored as `npm run demo` anchors it): its year of spot, futures,
 * margin and P2P records, stored as ingestion stores them, walked exactly as the gains reports walk
 * them (readLedgerEntries -> walkHistory). At every Berlin day's end each coin's open lots (fifo;
 * `de` matches FIFO too) and at every London day's end, once the day is decided, each coin's
 * section 104 pool (uk) equal the account's spot + futures + margin + P2P holdings of that coin,
 * read from the stored ledgers themselves: spot's running `balance` column, the futures wallet's
 * sum of its records' amount + fee, each margin account's sum of amount + fee (its `total`), the
 * P2P wallet's signed sum of its records' `total`. For uk a disposal matched under the 30-day rule with an
 * acquisition after the day (CRYPTO22256) left the pool at the day's end and the later acquisition
 * never joins it: those shares are added back to the day's holdings.
 * The same walks check "0 rows with invented cost": every row that consumed a lot brought in by a
 * deposit (coins from outside; no cost-basis import here) is flagged review:unknown-cost with an
 * empty cost, as the realized-gains file writes it (issue 33, item 3; HMRC CRYPTO22200 asks for the
 * actual cost, which the ledger does not know).
 */
const db = useTestDatabase('demopools');
const ANCHOR = Date.UTC(2026, 10, 28);
const NOW = ANCHOR + 6 * 3_600_000;
const DAY = 86_400_000;

type Row = Record<string, string>;
let accountId: string;
let spot: Row[];
let futures: Row[];
let margin: Row[];
let p2p: Row[];
let pool: pg.Pool;

/** The exchange's order of records: time, then the id's numeric order. */
const exchangeOrder = (a: Row, b: Row) =>
  Number(a.ts) - Number(b.ts) || a.id!.length - b.id!.length || (a.id! < b.id! ? -1 : a.id! > b.id! ? 1 : 0);

beforeAll(async () => {
  const sim = await startSimulator({
    scale: 'demo',
    seed: 42,
    anchor: ANCHOR,
    now: NOW,
    rateLimits: { enabled: false },
  });
  let truth: Truth;
  let marginTruth: Row[];
  let p2pTruth: Row[];
  try {
    const productTypeOfCoin = new Map(FUTURES_WALLETS.map((w) => [w.marginCoin, w.productType]));
    truth = {
      spot: sim.truth('spot').map((r) => ({ ...r })),
      positions: sim.truth('positions').map((r) => ({ ...r })),
      transfers: sim.truth('transfers').map((r) => ({ ...r })),
      futuresLedger: sim
        .truth('futures-ledger')
        .map((r) => ({ ...r, productType: productTypeOfCoin.get(r.marginCoin)! })),
    };
    marginTruth = sim.truth('margin-ledger').map((r) => ({ ...r }));
    p2pTruth = sim.truth('p2p-ledger').map((r) => ({ ...r }));
  } finally {
    await sim.close();
  }
  spot = [...truth.spot].sort(exchangeOrder);
  futures = [...truth.futuresLedger!].sort(exchangeOrder);
  accountId = await insertAccount(db.url, 'demo');
  const productType = new Map(FUTURES_MARKETS.map((m) => [m.symbol, m.productType]));
  await insertTruth(db.url, accountId, truth, (symbol) => productType.get(symbol)!);
  margin = [...marginTruth].sort(exchangeOrder);
  p2p = [...p2pTruth].sort(exchangeOrder);
  await insertWalletLedgers(db.url, accountId, margin, p2p);
  pool = new pg.Pool({ connectionString: db.url, max: 2 });
}, 120_000);

afterAll(async () => {
  await pool?.end();
});

/** Daily closes in `currency` of every coin (the simulator's flat market; USDT at `rate`). */
function points(currency: string, rate: number): PricePointInput[] {
  const out: PricePointInput[] = [];
  for (let at = ANCHOR - 400 * DAY; at <= NOW + DAY; at += DAY) {
    for (const [coin, price] of Object.entries(USDT_PRICE)) {
      out.push({ at: new Date(at), base: coin, quote: currency, price: String(price * rate), source: 'test' });
    }
  }
  return out;
}

/** Spot + futures + margin + P2P holdings of every coin just before `endMs`, from the stored ledgers (a cursor over them). */
function holdingsReader() {
  const spotBalance = new Map<string, Decimal>();
  const walletBalance = new Map<string, Decimal>();
  const awayMoves = new Map<string, Decimal>();
  const add = (coin: string, q: Decimal) =>
    walletBalance.set(coin, (walletBalance.get(coin) ?? new Decimal(0)).plus(q));
  let s = 0;
  let f = 0;
  let m = 0;
  let p = 0;
  return (endMs: number): Map<string, Decimal> => {
    for (; s < spot.length && Number(spot[s]!.ts) < endMs; s++) {
      const r = spot[s]!;
      spotBalance.set(r.coin!, new Decimal(r.balance!));
      const moved = new Decimal(r.amount!).plus(r.fee!).neg();
      // Locked, earning, in a strategy or another own account: still the owner's, the lots stay; what
      // comes back beyond what went away arrives as coins of unknown cost (walk-history.ts).
      if (treatmentOf('spot', r.spotTaxType!).kind === 'own-move' && !/^Transfer (in|out)$/.test(r.spotTaxType!)) {
        awayMoves.set(r.coin!, Decimal.max(0, (awayMoves.get(r.coin!) ?? new Decimal(0)).plus(moved)));
      }
    }
    for (; f < futures.length && Number(futures[f]!.ts) < endMs; f++) {
      const r = futures[f]!;
      add(r.marginCoin!, new Decimal(r.amount!).plus(r.fee!));
    }
    for (; m < margin.length && Number(margin[m]!.ts) < endMs; m++) {
      const r = margin[m]!;
      add(r.coin!, new Decimal(r.amount!).plus(r.fee!));
    }
    for (; p < p2p.length && Number(p2p[p]!.ts) < endMs; p++) {
      const r = p2p[p]!;
      const inward = r.p2pTaxType === 'buy' || r.p2pTaxType === 'transfer_in';
      add(r.coin!, new Decimal(r.total!).times(inward ? 1 : -1));
    }
    const out = new Map(spotBalance);
    for (const [coin, q] of [...walletBalance, ...awayMoves]) out.set(coin, (out.get(coin) ?? new Decimal(0)).plus(q));
    return out;
  };
}

/** Every local day end (exclusive instant) from the history's first day to its last. */
function dayEnds(zone: string): number[] {
  const ends: number[] = [];
  let end = DateTime.fromMillis(Number(spot[0]!.ts), { zone }).startOf('day').plus({ days: 1 });
  while (end.toMillis() <= NOW) {
    ends.push(end.toMillis());
    end = end.plus({ days: 1 });
  }
  return ends;
}

/** The account's entries, as the gains reports read them, in one snapshot. */
let read: LedgerEntry[] | undefined;
async function entries(): Promise<LedgerEntry[]> {
  if (read !== undefined) return read;
  const client = await pool.connect();
  try {
    const out: LedgerEntry[] = [];
    for await (const e of readLedgerEntries(client, accountId, new Date(NOW + DAY))) out.push(e);
    return (read = out);
  } finally {
    client.release();
  }
}

async function* from<T>(items: readonly T[]): AsyncGenerator<T> {
  for (const item of items) yield await Promise.resolve(item);
}

/** The record ids of every entry bringing coins in from outside (deposits: cost unknown). */
function depositIds(all: readonly LedgerEntry[]): Set<string> {
  return new Set(all.filter((e) => entryTreatment(e).kind === 'deposit').map((e) => e.recordIds));
}

const coinsOf = (...maps: Map<string, Decimal>[]) => [...new Set(maps.flatMap((m) => [...m.keys()]))].sort();

describe("the demo account's year: pools follow all four wallets, no cost invented", () => {
  it('fifo and de: at every Berlin day end each coin’s open lots equal spot + futures + margin + P2P holdings; deposit lots are unknown cost', async () => {
    const all = await entries();
    const deposits = depositIds(all);
    const ends = dayEnds('Europe/Berlin');
    const holdingsAt = holdingsReader();
    const engine = new LotEngine('fifo', 'EUR');
    const mismatches: string[] = [];
    let next = 0;
    let checked = 0;
    const gated = async function* () {
      for (const e of all) {
        while (next < ends.length && ends[next]! <= e.atMs) {
          const holdings = holdingsAt(ends[next]!);
          for (const coin of coinsOf(holdings)) {
            const held = engine.held(coin);
            const want = holdings.get(coin) ?? new Decimal(0);
            if (!held.eq(want))
              mismatches.push(`${new Date(ends[next]!).toISOString()} ${coin} lots ${held} holdings ${want}`);
            checked++;
          }
          next++;
        }
        yield await Promise.resolve(e);
      }
    };
    const invented: string[] = [];
    let unknown = 0;
    const book = memoryPriceBook('EUR', points('EUR', 0.9));
    const fifo = { method: 'fifo' as const, longTermDays: 365, currency: 'EUR', toleranceMs: 36 * 3_600_000 };
    for await (const event of walkHistory(gated(), book, engine) as AsyncGenerator<GainsEvent<LotMatch>>) {
      if (event.kind !== 'disposal') continue;
      const m = event.match;
      // The rows both files write from this match: realized-gains --method fifo (cost_basis) and de.
      const cells = [gainRow(m, fifo, 'UTC'), deGainRow(m, 'EUR', 'Europe/Berlin')];
      const costs = [cells[0]!.cells[4], cells[1]!.cells[5]];
      for (const [i, row] of cells.entries()) {
        if (row.flag === UNKNOWN_COST && costs[i] !== null) invented.push(`flagged, with a cost: ${m.lotRecordIds}`);
      }
      if (!m.lotRecordIds.split(' ').some((id) => deposits.has(id))) continue;
      unknown++;
      for (const [i, row] of cells.entries()) {
        if (row.flag !== UNKNOWN_COST || costs[i] !== null)
          invented.push(`${m.coin} ${m.lotRecordIds} ${costs[i]} ${row.flag}`);
      }
    }
    expect(invented).toEqual([]);
    expect(unknown).toBeGreaterThan(100);
    expect(checked).toBeGreaterThan(360 * 7);
    expect(mismatches).toEqual([]);
  }, 120_000);

  it('uk: at every London day end, once decided, each coin’s s104 pool equals spot + futures + margin + P2P holdings (30-day shares added back); deposit shares are unknown cost', async () => {
    const all = await entries();
    const deposits = depositIds(all);
    const ends = dayEnds('Europe/London');
    const holdingsAt = holdingsReader();
    const matcher = new UkMatcher('GBP');
    // Pools as they stand after each decided London day (matcher.advance decides the days more
    // than 30 days back), with the matches that day's decision handed out.
    const matches: UkMatch[] = [];
    const decided = new Map<string, Map<string, Decimal>>();
    const coins = new Set<string>();
    const sink: LotSink<UkMatch> = {
      acquire: (coin, ...rest) => {
        coins.add(coin);
        matcher.acquire(coin, ...rest);
      },
      dispose: (...args) => matcher.dispose(...args),
      withdraw: (...args) => matcher.withdraw(...args),
      advance: (atMs) => {
        const out = matcher.advance(atMs);
        matches.push(...out);
        // Every London day before the 30 days up to today is decided now.
        const through = DateTime.fromMillis(atMs, { zone: 'Europe/London' }).minus({ days: 31 }).toISODate()!;
        decided.set(through, new Map([...coins].map((c) => [c, matcher.pool(c).quantity])));
        return out;
      },
      finish: () => {
        const out = matcher.finish();
        matches.push(...out);
        return out;
      },
    };
    const book = memoryPriceBook('GBP', points('GBP', 0.8));
    for await (const event of walkHistory(from(all), book, sink)) void event;

    const invented: string[] = [];
    let unknown = 0;
    for (const m of matches) {
      const row = ukGainRow(m, 'GBP');
      const cost = row.cells[7];
      if (row.flag === UNKNOWN_COST && cost !== null) invented.push(`flagged, with a cost: ${m.disposalRecordIds}`);
      if (!m.acquisitionRecordIds.split(' ').some((id) => deposits.has(id))) continue;
      unknown++;
      if (row.flag !== UNKNOWN_COST || cost !== null)
        invented.push(`${m.coin} ${m.rule} ${m.acquisitionRecordIds} ${cost}`);
    }
    expect(invented).toEqual([]);
    expect(unknown).toBeGreaterThan(10);
    // No disposal went beyond the pool: the wallets never hold less than the pool gives.
    expect(matches.filter((m) => m.rule === 'beyond-holdings' || m.rule === 'withdrawal-beyond-holdings')).toEqual([]);

    const mismatches: string[] = [];
    let checked = 0;
    const thirtyDay = matches.filter((m) => m.rule === '30-day');
    for (const end of ends) {
      const day = DateTime.fromMillis(end - 1, { zone: 'Europe/London' }).toISODate()!;
      const pools = decided.get(day);
      const holdings = holdingsAt(end);
      if (pools === undefined) continue;
      for (const coin of coinsOf(holdings, pools)) {
        // Disposed of on or before the day, matched with an acquisition after it: out of the pool
        // and of the wallets, and the later acquisition never joins the pool (CRYPTO22256).
        const bridging = thirtyDay
          .filter((m) => m.coin === coin && m.disposedOn <= day && m.acquiredOn! > day)
          .reduce((sum, m) => sum.plus(m.quantity), new Decimal(0));
        const pool = pools.get(coin) ?? new Decimal(0);
        const want = (holdings.get(coin) ?? new Decimal(0)).plus(bridging);
        if (!pool.eq(want)) mismatches.push(`${day} ${coin} pool ${pool} holdings + 30-day ${want}`);
        checked++;
      }
    }
    expect(mismatches).toEqual([]);
    expect(checked).toBeGreaterThan(300 * 7);
  }, 120_000);
});

/** The margin and P2P records as ingestion stores them (the isolated account's records name its symbol). */
async function insertWalletLedgers(url: string, account: string, marginRows: Row[], p2pRows: Row[]): Promise<void> {
  const iso = (ms: string) => new Date(Number(ms)).toISOString();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO margin_ledger_record (account_id, margin_type, record_id, coin, symbol, margin_tax_type, amount, fee, total, ts, raw)
       SELECT $1::uuid, * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::numeric[],
         $8::numeric[], $9::numeric[], $10::timestamptz[], $11::jsonb[])`,
      [
        account,
        marginRows.map((r) => (r.symbol === '' ? 'crossed' : 'isolated')),
        marginRows.map((r) => r.id),
        marginRows.map((r) => r.coin),
        marginRows.map((r) => r.symbol),
        marginRows.map((r) => r.marginTaxType),
        marginRows.map((r) => r.amount),
        marginRows.map((r) => r.fee),
        marginRows.map((r) => r.total),
        marginRows.map((r) => iso(r.ts!)),
        marginRows.map((r) => JSON.stringify(r)),
      ],
    );
    await client.query(
      `INSERT INTO p2p_ledger_record (account_id, record_id, coin, p2p_tax_type, total, ts, raw)
       SELECT $1::uuid, * FROM unnest($2::text[], $3::text[], $4::text[], $5::numeric[], $6::timestamptz[], $7::jsonb[])`,
      [
        account,
        p2pRows.map((r) => r.id),
        p2pRows.map((r) => r.coin),
        p2pRows.map((r) => r.p2pTaxType),
        p2pRows.map((r) => r.total),
        p2pRows.map((r) => iso(r.ts!)),
        p2pRows.map((r) => JSON.stringify(r)),
      ],
    );
  } finally {
    await client.end();
  }
}
