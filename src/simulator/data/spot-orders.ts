import type { Rng } from '../prng.ts';
import { coinIndex, SPOT_COINS } from './coins.ts';
import { FIXED_DECIMALS } from './fixed.ts';
import { USDT_PRICE } from './reference-prices.ts';
import { SPOT_TAX_TYPES } from './spot-tax-types.ts';
import { DAY, HOUR, MINUTE, SECOND } from './time.ts';

/**
 * Spot trades as orders (docs/exchange-api.md §5.4.1, "Business order number"): an order has one
 * or more fills; each fill writes two records in the same millisecond, the leg given away (amount
 * < 0) and the leg received (amount > 0), both carrying the order's bizOrderId. The trading fee is
 * charged on the received leg, or, for some orders, in BGB as a separate `Transaction fee deduct`
 * record with the same bizOrderId. Later fills of an order come seconds to days after the first,
 * so an order's legs can lie in different months.
 */

/** One record an order writes; amounts in 1e-8 units, as the generator's columns. */
export interface OrderRecord {
  coin: number;
  type: number;
  amount: number;
  fee: number;
}

/** The record types of each kind of order: [type of the leg given away, type of the leg received]. */
const KINDS = {
  buy: ['Buy', 'Buy'],
  sell: ['Sell', 'Sell'],
  buyCrypto: ['Buy Crypto', 'Buy Crypto'],
  sellCrypto: ['Sell Crypto', 'Sell Crypto'],
  exchange: ['Exchange spending', 'Exchange income'],
} as const;
export type OrderKind = keyof typeof KINDS;

const typeIndex = (type: string) => SPOT_TAX_TYPES.indexOf(type as (typeof SPOT_TAX_TYPES)[number]);
const KIND_TYPES = Object.fromEntries(
  Object.entries(KINDS).map(([kind, [out, into]]) => [kind, [typeIndex(out), typeIndex(into)]]),
) as Record<OrderKind, [number, number]>;
const FEE_DEDUCT = typeIndex('Transaction fee deduct');
const USDT = coinIndex('USDT');
const BGB = coinIndex('BGB');

/** The order kind a drawn record type starts: every trade type and the BGB fee type come from orders. */
export function orderKindOf(type: number): OrderKind | undefined {
  const name = SPOT_TAX_TYPES[type];
  if (name === 'Buy' || name === 'Transaction fee deduct') return 'buy';
  if (name === 'Sell') return 'sell';
  if (name === 'Buy Crypto') return 'buyCrypto';
  if (name === 'Sell Crypto') return 'sellCrypto';
  if (name === 'Exchange spending' || name === 'Exchange income') return 'exchange';
  return undefined;
}

export interface SpotOrder {
  bizOrderId: number;
  kind: OrderKind;
  /** The coin given away and the coin received. */
  out: number;
  into: number;
  /** Units of `into` per unit of `out`, fixed for the order. */
  rate: number;
  /** Whether the fee is paid in BGB as a separate record. */
  bgbFee: boolean;
  /** Fills not yet written, and when each is due (ascending). */
  fillTimes: number[];
  /** Share of the available balance of `out` each fill spends. */
  share: number;
}

export function newOrder(rng: Rng, kind: OrderKind, at: number): SpotOrder {
  const coins = SPOT_COINS.length;
  const other = () => {
    let coin = rng.int(0, coins - 1);
    while (coin === USDT) coin = rng.int(0, coins - 1);
    return coin;
  };
  let out: number;
  let into: number;
  if (kind === 'buy' || kind === 'buyCrypto') [out, into] = [USDT, other()];
  else if (kind === 'sell' || kind === 'sellCrypto') [out, into] = [other(), USDT];
  else {
    out = rng.int(0, coins - 1);
    into = rng.int(0, coins - 2);
    if (into >= out) into++;
  }
  const jitter = 0.95 + rng.next() * 0.1;
  const rate = (USDT_PRICE[SPOT_COINS[out]!.coin]! / USDT_PRICE[SPOT_COINS[into]!.coin]!) * jitter;
  const fills = rng.chance(0.7) ? 1 : rng.int(2, 4);
  const fillTimes = [at];
  for (let k = 1; k < fills; k++) fillTimes.push(fillTimes[k - 1]! + fillDelay(rng));
  return {
    bizOrderId: rng.int(1_000_000_000_000_000, 8_999_999_999_999_999),
    kind,
    out,
    into,
    rate,
    bgbFee: kind !== 'exchange' && rng.chance(0.25),
    fillTimes,
    share: (0.05 + rng.next() * 0.4) / fills,
  };
}

/** Seconds to minutes mostly, sometimes hours, now and then days (so some orders span a month end). */
function fillDelay(rng: Rng): number {
  const r = rng.next();
  if (r < 0.65) return rng.int(SECOND, 30 * MINUTE);
  if (r < 0.85) return rng.int(HOUR, 12 * HOUR);
  return rng.int(DAY, 5 * DAY);
}

/** Granule (smallest step, in 1e-8 units) of a coin's amounts. */
export function granuleOf(coin: number): number {
  return 10 ** (FIXED_DECIMALS - SPOT_COINS[coin]!.decimals);
}

/**
 * The records of the order's next fill, given the balances before it (not changed here), or none
 * when the balance of the coin given away is too small for a fill (the order's remainder lapses).
 * `room` is how many records may still be written; a fill that does not fit is not written.
 */
export function fillRecords(rng: Rng, order: SpotOrder, balances: readonly number[], room: number): OrderRecord[] {
  const outGranule = granuleOf(order.out);
  const intoGranule = granuleOf(order.into);
  const given = Math.floor((balances[order.out]! * order.share) / outGranule) * outGranule;
  const received = Math.floor((given * order.rate) / intoGranule) * intoGranule;
  if (given <= 0 || received <= 0) return [];
  const [outType, intoType] = KIND_TYPES[order.kind];
  const feeValue = Math.max(1, Math.round((received * 0.001) / intoGranule)) * intoGranule;
  const records: OrderRecord[] = [{ coin: order.out, type: outType, amount: -given, fee: 0 }];
  if (order.bgbFee) {
    const bgbRate = USDT_PRICE[SPOT_COINS[order.into]!.coin]! / USDT_PRICE.BGB!;
    const bgb = Math.max(1, Math.round((feeValue * bgbRate) / granuleOf(BGB))) * granuleOf(BGB);
    // Paid in BGB only while the account holds enough of it (after this fill's own BGB legs).
    const bgbAfter = balances[BGB]! + (order.out === BGB ? -given : 0) + (order.into === BGB ? received : 0);
    if (bgbAfter >= bgb && room >= 3) {
      records.push({ coin: order.into, type: intoType, amount: received, fee: 0 });
      records.push({ coin: BGB, type: FEE_DEDUCT, amount: -bgb, fee: 0 });
      return records;
    }
  }
  if (room < 2) return [];
  const fee = rng.chance(0.9) ? -Math.min(feeValue, received) : 0;
  records.push({ coin: order.into, type: intoType, amount: received, fee });
  return records;
}
