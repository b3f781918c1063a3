import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { UkMatcher } from '../../src/accounting/gains/uk-matching.ts';
import { walkHistory } from '../../src/accounting/gains/walk-history.ts';
import { LotEngine } from '../../src/accounting/lots/lot-engine.ts';
import { memoryPriceBook } from '../../src/accounting/prices/memory-price-book.ts';
import type { LedgerEntry } from '../../src/booking/ledger-entry.ts';
import { readLedgerEntries } from '../../src/booking/ledger-entry-cursor.ts';
import { FUTURES_WALLETS } from '../../src/simulator/data/futures-wallets.ts';
import { startSimulator } from '../../src/simulator/index.ts';
import { insertAccount, insertTruth, withClient } from '../export/seed.ts';
import { useTestDatabase } from '../helpers/test-database.ts';

/**
 * The demo account's year from the simulator (spot, futures ledger, both margin accounts, the P2P
 * wallet), stored as ingestion stores it and read by the gains walk's own cursor
 * (src/booking/wallet-entries.ts): every margin trade leg pairs (no order id: its account and
 * instant), and at the history's end each coin's open lots (fifo) and s104 pool (uk) hold what the
 * four wallets hold (docs/reports.md, "Margin and P2P"), plus what went beyond the holdings
 * (counted) and what left the wallets without leaving the owner (locks, earn: the lots stay).
 */
const db = useTestDatabase('walletpools');
const NOW = Date.UTC(2026, 9, 15, 12, 0, 0);
type Row = Record<string, string>;
let accountId: string;
let truth: { spot: Row[]; futures: Row[]; margin: Row[]; p2p: Row[] };
let entries: LedgerEntry[];

const add = (map: Map<string, Decimal>, coin: string, value: Decimal.Value) =>
  map.set(coin, (map.get(coin) ?? new Decimal(0)).plus(value));
const iso = (ms: string) => new Date(Number(ms)).toISOString();
// Spot's own moves to places outside the four wallets (locks, earn, strategy accounts): the owner's still.
const STAYS_OWNED =
  /^(System lock-up|User lock-up|Manage background lock positions|Deposit from strategy account|Withdraw to strategy account|Delegate|Undelegate|Unlock locked order|Release|The locked order is returned to the system|Withdrawal frozen|Withdrawal unfreeze|Subscribe|Redemption|Super account|MegaSwap Transfer in|MegaSwap Transfer out)$/;

beforeAll(async () => {
  const sim = await startSimulator({ scale: 'demo', now: NOW, seed: 42, rateLimits: { enabled: false } });
  try {
    const productType = new Map(FUTURES_WALLETS.map((w) => [w.marginCoin, w.productType]));
    truth = {
      spot: sim.truth('spot').map((r) => ({ ...r })),
      futures: sim.truth('futures-ledger').map((r) => ({ ...r, productType: productType.get(r.marginCoin)! })),
      margin: sim.truth('margin-ledger').map((r) => ({ ...r })),
      p2p: sim.truth('p2p-ledger').map((r) => ({ ...r })),
    };
  } finally {
    await sim.close();
  }
  accountId = await insertAccount(db.url, 'demo');
  await insertTruth(
    db.url,
    accountId,
    { spot: truth.spot, positions: [], transfers: [], futuresLedger: truth.futures },
    () => 'USDT-FUTURES',
  );
  await withClient(db.url, async (c) => {
    const m = truth.margin;
    await c.query(
      `INSERT INTO margin_ledger_record (account_id, margin_type, record_id, coin, symbol, margin_tax_type, amount, fee, total, ts, raw)
       SELECT $1::uuid, * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::numeric[],
         $8::numeric[], $9::numeric[], $10::timestamptz[], $11::jsonb[])`,
      [
        accountId,
        // The record does not carry its margin type: the isolated account's records name its symbol.
        m.map((r) => (r.symbol === '' ? 'crossed' : 'isolated')),
        m.map((r) => r.id),
        m.map((r) => r.coin),
        m.map((r) => r.symbol),
        m.map((r) => r.marginTaxType),
        m.map((r) => r.amount),
        m.map((r) => r.fee),
        m.map((r) => r.total),
        m.map((r) => iso(r.ts!)),
        m.map((r) => JSON.stringify(r)),
      ],
    );
    const p = truth.p2p;
    await c.query(
      `INSERT INTO p2p_ledger_record (account_id, record_id, coin, p2p_tax_type, total, ts, raw)
       SELECT $1::uuid, * FROM unnest($2::text[], $3::text[], $4::text[], $5::numeric[], $6::timestamptz[], $7::jsonb[])`,
      [
        accountId,
        p.map((r) => r.id),
        p.map((r) => r.coin),
        p.map((r) => r.p2pTaxType),
        p.map((r) => r.total),
        p.map((r) => iso(r.ts!)),
        p.map((r) => JSON.stringify(r)),
      ],
    );
  });
  entries = await withClient(db.url, async (c) => {
    const out: LedgerEntry[] = [];
    for await (const e of readLedgerEntries(c, accountId, new Date(NOW + 86_400_000))) out.push(e);
    return out;
  });
}, 120_000);

afterAll(() => undefined);

/**
 * What the four wallets hold per coin at the history's end, read from the records as the demo's
 * pools test reads them (demo-pools-follow-wallets.test.ts): spot's last running `balance`, the
 * futures, margin and P2P records' sums, plus what spot's own moves (locks, earn, own accounts)
 * hold away (still the owner's: the lots stay).
 */
function fourWallets(): Map<string, Decimal> {
  const held = new Map<string, Decimal>();
  const spotBalance = new Map<string, Decimal>();
  const away = new Map<string, Decimal>();
  const bySpotOrder = [...truth.spot].sort(
    (a, b) => Number(a.ts) - Number(b.ts) || a.id!.length - b.id!.length || (a.id! < b.id! ? -1 : 1),
  );
  for (const r of bySpotOrder) {
    spotBalance.set(r.coin!, new Decimal(r.balance!));
    if (STAYS_OWNED.test(r.spotTaxType!)) {
      const moved = new Decimal(r.amount!).plus(r.fee!).neg();
      away.set(r.coin!, Decimal.max(0, (away.get(r.coin!) ?? new Decimal(0)).plus(moved)));
    }
  }
  for (const [coin, q] of [...spotBalance, ...away]) add(held, coin, q);
  for (const r of truth.futures) add(held, r.marginCoin!, new Decimal(r.amount!).plus(r.fee!));
  for (const r of truth.margin) add(held, r.coin!, new Decimal(r.amount!).plus(r.fee!));
  for (const r of truth.p2p) {
    const sign = r.p2pTaxType === 'buy' || r.p2pTaxType === 'transfer_in' ? 1 : -1;
    add(held, r.coin!, new Decimal(r.total!).times(sign));
  }
  return held;
}

async function* from<T>(items: T[]): AsyncGenerator<T> {
  for (const item of items) yield await Promise.resolve(item);
}

describe('the gains walk over the simulator’s four wallets', () => {
  it('pairs every margin trade leg: a deal or exchange given side and received side of one account at one instant', () => {
    const margin = entries.filter((e) => e.wallet === 'margin');
    const legs = truth.margin.filter((r) => /^(deal|exchange)_(in|out)$/.test(r.marginTaxType!)).length;
    expect(margin.filter((e) => e.flag === 'unpaired-leg')).toEqual([]);
    expect(margin.filter((e) => e.category === 'trade').length * 2).toBe(legs);
    expect(legs).toBeGreaterThan(40);
    expect(entries.filter((e) => e.wallet === 'p2p').length).toBe(truth.p2p.length);
  });

  it('fifo and uk: at the end each coin’s lots and pool hold the spot + futures + margin + P2P total (plus what went beyond the holdings)', async () => {
    const engine = new LotEngine('fifo', 'EUR');
    const beyond = new Map<string, Decimal>();
    for await (const event of walkHistory(from(entries), memoryPriceBook('EUR', []), engine)) {
      if (event.kind === 'disposal' && (event.match.beyondHoldings || event.match.withdrawal === true)) {
        add(beyond, event.match.coin, event.match.quantity);
      }
    }
    const matcher = new UkMatcher('GBP');
    const ukBeyond = new Map<string, Decimal>();
    for await (const event of walkHistory(from(entries), memoryPriceBook('GBP', []), matcher)) {
      if (event.kind === 'disposal' && /beyond-holdings/.test(event.match.rule)) {
        add(ukBeyond, event.match.coin, event.match.quantity);
      }
    }
    const held = fourWallets();
    expect(held.size).toBeGreaterThan(3);
    for (const [coin, total] of held) {
      const expected = total.plus(beyond.get(coin) ?? 0).toFixed();
      expect(`${coin} ${engine.held(coin).toFixed()}`).toBe(`${coin} ${expected}`);
      const ukExpected = total.plus(ukBeyond.get(coin) ?? 0).toFixed();
      expect(`${coin} ${matcher.pool(coin).quantity.toFixed()}`).toBe(`${coin} ${ukExpected}`);
    }
  });

  it('without the margin and P2P wallets (the walk before) the pools would not hold what the wallets do', async () => {
    const engine = new LotEngine('fifo', 'EUR');
    const old = entries.filter((e) => e.wallet === 'spot' || e.wallet === 'futures');
    for await (const event of walkHistory(from(old), memoryPriceBook('EUR', []), engine)) void event;
    const held = fourWallets();
    const off = [...held].filter(([coin, total]) => !engine.held(coin).eq(total));
    expect(off.map(([coin]) => coin)).toContain('USDT');
  });
});
