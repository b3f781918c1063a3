import { coinIndex, SPOT_COINS } from '../data/coins.ts';
import { FIXED_DECIMALS, formatFixed } from '../data/fixed.ts';
import { assignIds } from '../data/ledger-store.ts';
import type { SpotColumns } from '../data/spot-generator.ts';
import { SPOT_TAX_TYPES } from '../data/spot-tax-types.ts';
import { DAY } from '../data/time.ts';
import { Rng } from '../prng.ts';
import type { SimWalletLedger } from './wallet-ledger.ts';

/** One P2P finance record; `total` the quantity (1e-8 units, unsigned), its type the direction. */
export interface P2pRow {
  id: number;
  ts: number;
  coin: number;
  type: 'transfer_in' | 'transfer_out' | 'buy' | 'sell';
  total: number;
}

const YEAR = 365 * DAY;
const TAIL = 2 * DAY;
const SPOT_TRANSFER_IN = SPOT_TAX_TYPES.indexOf('Transfer in');
const SPOT_TRANSFER_OUT = SPOT_TAX_TYPES.indexOf('Transfer out');
const USDT = coinIndex('USDT');

/** A record's signed change to the P2P wallet. */
export function p2pChange(row: Pick<P2pRow, 'type' | 'total'>): number {
  return row.type === 'buy' || row.type === 'transfer_in' ? row.total : -row.total;
}

/**
 * The P2P wallet's finance records (src/simulator/README.md, "Margin and P2P ledgers"): each spot
 * transfer whose other side is P2P (wallet-sides.ts) as `transfer_in`/`transfer_out` of the same
 * coin and quantity at the same instant; USDT `buy`s and `sell`s through the year; each coin's
 * wallet opens with a `buy` at the first instant of the year sized so that it never goes below zero.
 */
export function generateP2pLedger(
  seed: number,
  spot: SpotColumns,
  anchor: number,
  sideOf: (spotIndex: number) => string,
): P2pRow[] {
  if (spot.ids.length === 0) return [];
  const rng = new Rng(seed, 'p2p-ledger');
  const start = anchor - YEAR;
  const drafts: Omit<P2pRow, 'id'>[] = [];
  for (let i = 0; i < spot.ids.length; i++) {
    const type = spot.type[i]!;
    if (type !== SPOT_TRANSFER_IN && type !== SPOT_TRANSFER_OUT) continue;
    if (sideOf(i) !== 'p2p') continue;
    drafts.push({
      ts: Math.floor(spot.ids[i]! / 1000),
      coin: spot.coin[i]!,
      type: type === SPOT_TRANSFER_OUT ? 'transfer_in' : 'transfer_out',
      total: Math.abs(spot.amount[i]!),
    });
  }
  const trades = Math.max(10, Math.min(1_000, Math.round(spot.ids.length / 400)));
  for (let k = 0; k < trades; k++) {
    const quantity = Math.max(1, Math.round((10 + rng.next() * 990) * 100)) * 10 ** (FIXED_DECIMALS - 2);
    drafts.push({
      ts: start + Math.floor(rng.next() * (YEAR + TAIL)),
      coin: USDT,
      type: rng.chance(0.6) ? 'buy' : 'sell',
      total: quantity,
    });
  }
  drafts.sort((a, b) => a.ts - b.ts);
  const balance = new Map<number, number>();
  const lowest = new Map<number, number>();
  for (const d of drafts) {
    const next = (balance.get(d.coin) ?? 0) + p2pChange(d);
    balance.set(d.coin, next);
    lowest.set(d.coin, Math.min(lowest.get(d.coin) ?? 0, next));
  }
  const openings: Omit<P2pRow, 'id'>[] = [];
  SPOT_COINS.forEach((spec, coin) => {
    const low = lowest.get(coin);
    if (low === undefined) return;
    const granule = 10 ** (FIXED_DECIMALS - spec.decimals);
    const total = Math.ceil(-low / granule) * granule + Math.round((spec.max / 10) * 10 ** spec.decimals) * granule;
    openings.push({ ts: start, coin, type: 'buy', total });
  });
  return assignIds([...openings, ...drafts], 'p2p generator');
}

/** A p2p-record item as the API serves it (docs/exchange-api.md §5.9): `total` the quantity, unsigned. */
export interface P2pRecord {
  id: string;
  coin: string;
  p2pTaxType: string;
  total: string;
  ts: string;
}

export function p2pRecord(row: P2pRow): P2pRecord {
  return {
    id: String(row.id),
    coin: SPOT_COINS[row.coin]!.coin,
    p2pTaxType: row.type,
    total: formatFixed(row.total),
    ts: String(row.ts),
  };
}

/** The P2P wallet. GET /api/v2/tax/p2p-record: startTime and endTime required, 30 days at most (docs/exchange-api.md §5.9). */
export const p2pLedger: SimWalletLedger<'p2p', 'p2p-ledger', P2pRow, P2pRecord> = {
  key: 'p2p',
  stream: 'p2p-ledger',
  // About one spot transfer in ten.
  transferSlots: { 2: () => 'p2p' },
  generate: generateP2pLedger,
  item: p2pRecord,
  route: { name: 'p2p-record', path: '/api/v2/tax/p2p-record', perSecond: 1, maxDays: 30 },
};
