import { Rng } from '../prng.ts';
import { unitsOf } from './fixed.ts';
import { DAY, HOUR, MINUTE, SECOND } from './time.ts';

export const TRANSFER_COINS = ['USDT', 'BTC', 'ETH', 'USDC', 'SOL'] as const;
const COIN_SIZES: Record<string, [number, number, number]> = {
  USDT: [10, 50_000, 4],
  BTC: [0.0005, 3, 8],
  ETH: [0.005, 40, 8],
  USDC: [10, 50_000, 4],
  SOL: [0.1, 800, 6],
};
export const TRANSFER_TYPES = ['deposit', 'withdrawal'] as const;
export const TRANSFER_SUBTYPES = ['onchain', 'internal', 'fast'] as const;
export const FINAL_STATUSES = ['success', 'fail'] as const;

/**
 * Broker sub-accounts' deposits and withdrawals as columns, sorted ascending
 * by creation. Each record is pending from `created` until `settle`, then
 * `success` or `fail`; its ts is `created` while pending and `settle` after.
 */
export interface TransferColumns {
  /** txId = created * 1000 + sequence: ascending ids are ascending (created, sequence). */
  txIds: Float64Array;
  created: Float64Array;
  settle: Float64Array;
  uid: Uint8Array;
  coin: Uint8Array;
  type: Uint8Array;
  subType: Uint8Array;
  /** Index into FINAL_STATUSES. */
  final: Uint8Array;
  amount: Float64Array;
  /** Positions sorted ascending by (settle, txId). */
  bySettle: Uint32Array;
}

const YEAR = 365 * DAY;
const TAIL = 2 * DAY;
/** Records created just before the anchor that are still pending at it. */
const PENDING_AT_ANCHOR = 12;

export function generateTransfers(seed: number, count: number, anchor: number, uidCount: number): TransferColumns {
  const rng = new Rng(seed, 'transfers');
  const pendingNow = Math.min(PENDING_AT_ANCHOR, Math.floor(count / 10));
  const created = new Float64Array(count);
  const start = anchor - YEAR;
  for (let i = 0; i < count - pendingNow; i++) created[i] = start + Math.floor(rng.next() * (YEAR + TAIL));
  for (let i = count - pendingNow; i < count; i++) created[i] = anchor - Math.floor(rng.next() * 30 * MINUTE);
  created.sort();
  const c: TransferColumns = {
    txIds: new Float64Array(count),
    created,
    settle: new Float64Array(count),
    uid: new Uint8Array(count),
    coin: new Uint8Array(count),
    type: new Uint8Array(count),
    subType: new Uint8Array(count),
    final: new Uint8Array(count),
    amount: new Float64Array(count),
    bySettle: new Uint32Array(count),
  };
  let seq = 0;
  for (let i = 0; i < count; i++) {
    seq = i > 0 && created[i] === created[i - 1] ? seq + 1 : 0;
    c.txIds[i] = created[i]! * 1000 + seq;
    c.uid[i] = rng.int(0, uidCount - 1);
    const coin = rng.int(0, TRANSFER_COINS.length - 1);
    c.coin[i] = coin;
    c.type[i] = rng.chance(0.55) ? 0 : 1;
    const subType = rng.chance(0.6) ? 0 : rng.chance(0.5) ? 1 : 2;
    c.subType[i] = subType;
    c.final[i] = rng.chance(0.88) ? 0 : 1;
    c.settle[i] = created[i]! + settleDelay(rng, subType, created[i]! >= anchor - 30 * MINUTE);
    const [min, max, decimals] = COIN_SIZES[TRANSFER_COINS[coin]!]!;
    const value = Math.exp(Math.log(min) + rng.next() * Math.log(max / min));
    c.amount[i] = unitsOf(Math.max(1, Math.round(value * 10 ** decimals)), decimals);
  }
  const order = Array.from({ length: count }, (_, i) => i);
  order.sort((a, b) => c.settle[a]! - c.settle[b]! || c.txIds[a]! - c.txIds[b]!);
  c.bySettle.set(order);
  return c;
}

/** On-chain takes minutes to hours; internal seconds; fast in between. Recent ones wait longer, so some are pending now. */
function settleDelay(rng: Rng, subType: number, recent: boolean): number {
  if (recent) return HOUR + Math.floor(rng.next() * 5 * HOUR);
  if (subType === 0) return 5 * MINUTE + Math.floor(rng.next() * 6 * HOUR);
  if (subType === 1) return SECOND + Math.floor(rng.next() * 30 * SECOND);
  return 30 * SECOND + Math.floor(rng.next() * 10 * MINUTE);
}
