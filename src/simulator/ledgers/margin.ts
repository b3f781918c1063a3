import { coinIndex, SPOT_COINS } from '../data/coins.ts';
import { FIXED_DECIMALS, formatFixed } from '../data/fixed.ts';
import { assignIds } from '../data/ledger-store.ts';
import type { SpotColumns } from '../data/spot-generator.ts';
import { SPOT_TAX_TYPES } from '../data/spot-tax-types.ts';
import { DAY } from '../data/time.ts';
import { Rng } from '../prng.ts';
import { enumQuery } from '../routes/params.ts';
import type { SimWalletLedger } from './wallet-ledger.ts';

export const MARGIN_TYPES = ['crossed', 'isolated'] as const;
export type MarginType = (typeof MARGIN_TYPES)[number];

/** One margin finance record; amounts in 1e-8 units, `total` the coin's balance in its margin account after it. */
export interface MarginRow {
  id: number;
  ts: number;
  marginType: MarginType;
  coin: number;
  type: string;
  amount: number;
  fee: number;
  total: number;
}

type Draft = Omit<MarginRow, 'id' | 'total'>;

const YEAR = 365 * DAY;
const TAIL = 2 * DAY;
const SPOT_TRANSFER_IN = SPOT_TAX_TYPES.indexOf('Transfer in');
const SPOT_TRANSFER_OUT = SPOT_TAX_TYPES.indexOf('Transfer out');
const BTC = coinIndex('BTC');
const USDT = coinIndex('USDT');
/** The coins of the isolated margin account (its one pair, BTCUSDT). */
export const ISOLATED_COINS: readonly string[] = ['BTC', 'USDT'];

/** The isolated account's one pair (both of ISOLATED_COINS). */
export const ISOLATED_SYMBOL = 'BTCUSDT';

/**
 * Both margin accounts' finance records (src/simulator/README.md, "Margin and P2P ledgers"):
 * - each spot transfer whose other side is a margin account (`transferSlots` below, wallet-sides.ts) is a `transfer_in`
 *   (spot `Transfer out`) or `transfer_out` (spot `Transfer in`) of the same coin and amount at
 *   the same instant;
 * - margin trades on BTCUSDT: a `deal_in` of what was bought (its fee beside it) and a `deal_out`
 *   of what was paid, at one instant;
 * - loans: a `borrow` of USDT, repaid later (`repay`) with its `interest_repay`; a few
 *   `liquidation_fee`s, one each of `system_fee_in`, `confiscated`, `compensate` and an
 *   `exchange_out`/`exchange_in` pair per account;
 * - each wallet (margin type, coin) opens with a `borrow` at the first instant of the year sized
 *   so that its balance never goes below zero; `total` is the running balance, to the last digit.
 */
export function generateMarginLedger(
  seed: number,
  spot: SpotColumns,
  anchor: number,
  sideOf: (spotIndex: number) => string,
): MarginRow[] {
  const rng = new Rng(seed, 'margin-ledger');
  const start = anchor - YEAR;
  const drafts: Draft[] = [];
  for (let i = 0; i < spot.ids.length; i++) {
    const type = spot.type[i]!;
    if (type !== SPOT_TRANSFER_IN && type !== SPOT_TRANSFER_OUT) continue;
    const side = sideOf(i);
    if (side !== 'margin-crossed' && side !== 'margin-isolated') continue;
    drafts.push({
      ts: Math.floor(spot.ids[i]! / 1000),
      marginType: side === 'margin-crossed' ? 'crossed' : 'isolated',
      coin: spot.coin[i]!,
      type: type === SPOT_TRANSFER_OUT ? 'transfer_in' : 'transfer_out',
      amount: -spot.amount[i]!,
      fee: 0,
    });
  }
  if (drafts.length === 0 && spot.ids.length === 0) return [];
  const trades = Math.max(12, Math.min(2_000, Math.round(spot.ids.length / 200)));
  const when = () => start + Math.floor(rng.next() * (YEAR + TAIL));
  for (const marginType of MARGIN_TYPES) {
    for (let k = 0; k < trades; k++) tradeDrafts(rng, marginType, when(), drafts);
    for (let k = 0; k < Math.max(3, trades / 10); k++) {
      const ts = when();
      const loan = usdt(rng, 100, 5_000);
      const repaid = ts + Math.floor((1 + rng.next() * 20) * DAY);
      drafts.push({ ts, marginType, coin: USDT, type: 'borrow', amount: loan, fee: 0 });
      drafts.push({ ts: repaid, marginType, coin: USDT, type: 'interest_repay', amount: -share(loan, 0.002), fee: 0 });
      drafts.push({ ts: repaid, marginType, coin: USDT, type: 'repay', amount: -loan, fee: 0 });
    }
    drafts.push({ ts: when(), marginType, coin: USDT, type: 'liquidation_fee', amount: -usdt(rng, 1, 30), fee: 0 });
    drafts.push({ ts: when(), marginType, coin: USDT, type: 'system_fee_in', amount: usdt(rng, 0.1, 3), fee: 0 });
    drafts.push({ ts: when(), marginType, coin: USDT, type: 'confiscated', amount: -usdt(rng, 0.1, 5), fee: 0 });
    drafts.push({ ts: when(), marginType, coin: USDT, type: 'compensate', amount: usdt(rng, 0.1, 5), fee: 0 });
    const swap = when();
    const btc = granules(BTC, 0.0005 + rng.next() * 0.01);
    drafts.push({ ts: swap, marginType, coin: BTC, type: 'exchange_out', amount: -btc, fee: 0 });
    drafts.push({ ts: swap, marginType, coin: USDT, type: 'exchange_in', amount: quote(btc, 60_000), fee: 0 });
  }
  // Stable: the records of one instant keep the order they were drafted in.
  drafts.sort((a, b) => a.ts - b.ts);
  const rows = assignIds([...openings(drafts, start), ...drafts], 'margin generator');
  const balances = new Map<string, number>();
  return rows.map((row) => {
    const key = `${row.marginType}/${row.coin}`;
    const total = (balances.get(key) ?? 0) + row.amount + row.fee;
    balances.set(key, total);
    return { ...row, total };
  });
}

/** The isolated account's pair is BTCUSDT; the crossed account trades it too. */
export function symbolOf(row: Pick<MarginRow, 'marginType'>): string {
  return row.marginType === 'isolated' ? ISOLATED_SYMBOL : '';
}

function tradeDrafts(rng: Rng, marginType: MarginType, ts: number, out: Draft[]): void {
  const btc = granules(BTC, 0.001 + rng.next() * 0.2);
  const paid = quote(btc, 20_000 + rng.next() * 80_000);
  if (rng.chance(0.5)) {
    out.push({ ts, marginType, coin: BTC, type: 'deal_in', amount: btc, fee: -share(btc, 0.001) });
    out.push({ ts, marginType, coin: USDT, type: 'deal_out', amount: -paid, fee: 0 });
  } else {
    out.push({ ts, marginType, coin: BTC, type: 'deal_out', amount: -btc, fee: 0 });
    out.push({ ts, marginType, coin: USDT, type: 'deal_in', amount: paid, fee: -share(paid, 0.001) });
  }
}

/** One opening `borrow` per wallet that would go below zero, at `at`: what its lowest balance needs, plus a cushion. */
function openings(drafts: readonly Draft[], at: number): Draft[] {
  const balance = new Map<string, number>();
  const lowest = new Map<string, number>();
  for (const d of drafts) {
    const key = `${d.marginType}/${d.coin}`;
    const next = (balance.get(key) ?? 0) + d.amount + d.fee;
    balance.set(key, next);
    lowest.set(key, Math.min(lowest.get(key) ?? 0, next));
  }
  const out: Draft[] = [];
  for (const marginType of MARGIN_TYPES) {
    SPOT_COINS.forEach((spec, coin) => {
      if (marginType === 'isolated' && !ISOLATED_COINS.includes(spec.coin)) return;
      const low = lowest.get(`${marginType}/${coin}`);
      if (low === undefined) return;
      const granule = 10 ** (FIXED_DECIMALS - spec.decimals);
      const amount = Math.ceil(-low / granule) * granule + Math.round((spec.max / 10) * 10 ** spec.decimals) * granule;
      out.push({ ts: at, marginType, coin, type: 'borrow', amount, fee: 0 });
    });
  }
  return out;
}

/** Units of `value` coins, rounded to the coin's granule (at least one). */
function granules(coin: number, value: number): number {
  const decimals = SPOT_COINS[coin]!.decimals;
  return Math.max(1, Math.round(value * 10 ** decimals)) * 10 ** (FIXED_DECIMALS - decimals);
}

function usdt(rng: Rng, min: number, max: number): number {
  return granules(USDT, min + rng.next() * (max - min));
}

/** What `btc` units cost at `price` USDT, in USDT units on USDT's granule. */
function quote(btc: number, price: number): number {
  return granules(USDT, (btc / 10 ** FIXED_DECIMALS) * price);
}

/** A fee or interest of `rate` of `units`, on the granule below (at least one 1e-8 unit). */
function share(units: number, rate: number): number {
  return Math.max(1, Math.floor(units * rate));
}

/** A margin-record item as the API serves it (docs/exchange-api.md §5.8): strings, amount signed, total the balance after. */
export interface MarginRecord {
  id: string;
  coin: string;
  symbol: string;
  marginTaxType: string;
  amount: string;
  fee: string;
  total: string;
  ts: string;
}

export function marginRecord(row: MarginRow): MarginRecord {
  return {
    id: String(row.id),
    coin: SPOT_COINS[row.coin]!.coin,
    symbol: symbolOf(row),
    marginTaxType: row.type,
    amount: formatFixed(row.amount),
    fee: formatFixed(row.fee),
    total: formatFixed(row.total),
    ts: String(row.ts),
  };
}

/**
 * The crossed and isolated margin accounts. GET /api/v2/tax/margin-record serves one margin type
 * (default crossed); startTime and endTime are required, 30 days at most: the older copies' widest
 * span, which every copy accepts (docs/exchange-api.md §5.8).
 */
export const marginLedger: SimWalletLedger<'margin', 'margin-ledger', MarginRow, MarginRecord> = {
  key: 'margin',
  stream: 'margin-ledger',
  // About one spot transfer in ten to each account; the isolated one takes its coins only.
  transferSlots: {
    0: () => 'margin-crossed',
    1: (coin) => (ISOLATED_COINS.includes(coin) ? 'margin-isolated' : 'margin-crossed'),
  },
  generate: generateMarginLedger,
  item: marginRecord,
  route: {
    name: 'margin-record',
    path: '/api/v2/tax/margin-record',
    perSecond: 1,
    maxDays: 30,
    scope(query) {
      const marginType = enumQuery(query, 'marginType', MARGIN_TYPES) ?? 'crossed';
      return (row) => row.marginType === marginType;
    },
  },
};
