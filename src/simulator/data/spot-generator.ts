import { Rng } from '../prng.ts';
import { SPOT_COINS } from './coins.ts';
import { FIXED_DECIMALS } from './fixed.ts';
import { MAX_BURST } from './scale.ts';
import { fillRecords, granuleOf, newOrder, orderKindOf, type OrderRecord, type SpotOrder } from './spot-orders.ts';
import { COMMON_TYPES, SPOT_TAX_TYPES, TYPE_HAS_FEE, TYPE_IS_OUTFLOW } from './spot-tax-types.ts';
import { DAY } from './time.ts';

/** Spot finance records as columns, sorted ascending by (ts, id). Amounts in 1e-8 units. */
export interface SpotColumns {
  /** id = ts * 1000 + sequence within the ts: ascending ids are ascending (ts, sequence). */
  ids: Float64Array;
  coin: Uint8Array;
  type: Uint8Array;
  amount: Float64Array;
  fee: Float64Array;
  balance: Float64Array;
  bizOrderId: Float64Array;
}

export interface SpotGenerationSpec {
  seed: number;
  count: number;
  bursts: number[];
  /** The clock at start: data covers the year before it and a short tail after it. */
  anchor: number;
}

const YEAR = 365 * DAY;
const TAIL = 2 * DAY;
const ID_FACTOR = 1000;

export function generateSpotRecords(spec: SpotGenerationSpec): SpotColumns {
  const rng = new Rng(spec.seed, 'spot-records');
  const n = spec.count;
  const times = spotTimes(rng, spec);
  const columns: SpotColumns = {
    ids: new Float64Array(n),
    coin: new Uint8Array(n),
    type: new Uint8Array(n),
    amount: new Float64Array(n),
    fee: new Float64Array(n),
    balance: new Float64Array(n),
    bizOrderId: new Float64Array(n),
  };
  fillValues(rng, times, columns);
  let seq = 0;
  for (let i = 0; i < n; i++) {
    seq = i > 0 && times[i] === times[i - 1] ? seq + 1 : 0;
    if (seq >= ID_FACTOR) throw new Error('spot generator: more than 999 records share one ts');
    columns.ids[i] = times[i]! * ID_FACTOR + seq;
  }
  return columns;
}

function spotTimes(rng: Rng, spec: SpotGenerationSpec): Float64Array {
  const n = spec.count;
  const start = spec.anchor - YEAR;
  const span = YEAR + TAIL;
  const burstTotal = spec.bursts.reduce((sum, size) => sum + Math.min(size, MAX_BURST), 0);
  const plain = Math.max(0, n - burstTotal);
  const times = new Float64Array(n);
  for (let i = 0; i < plain; i++) {
    // A trade often writes two or three records in the same millisecond (fill, fee, rebate).
    times[i] = i > 0 && rng.chance(0.08) ? times[i - 1]! : start + Math.floor(rng.next() * span);
  }
  let at = plain;
  spec.bursts.forEach((size, b) => {
    // The first burst lies within the last 30 days so the default window shows it.
    const from = b === 0 ? spec.anchor - 20 * DAY : start + 0.05 * YEAR;
    const ts = from + Math.floor(rng.next() * (spec.anchor - DAY - from));
    for (let k = 0; k < Math.min(size, MAX_BURST) && at < n; k++) times[at++] = ts;
  });
  return times.sort();
}

/**
 * Writes the records in time order. `times` holds one sorted slot per record; a record written
 * for an order's later fill takes its fill time instead (always at or before the slot it fills,
 * so the times stay sorted). Balances are kept while writing, so each record's balance is the
 * previous one of its coin + amount + fee, and nothing goes below zero.
 */
function fillValues(rng: Rng, times: Float64Array, c: SpotColumns): void {
  const n = c.ids.length;
  const coins = SPOT_COINS.length;
  const balances = new Array<number>(coins).fill(0);
  const cumulative = cumulativeWeights();
  const deposit = SPOT_TAX_TYPES.indexOf('Deposit');
  // Every spotTaxType appears: forced at evenly spaced events after the opening deposits.
  const typeCount = SPOT_TAX_TYPES.length;
  const coverageStart = Math.max(coins, Math.floor(n * 0.1));
  const coverageStep = Math.max(1, Math.floor((n - coverageStart) / (typeCount + 1)));
  // Orders with fills still to come, by the time of their next fill (ascending).
  const pending: SpotOrder[] = [];
  let i = 0;
  const write = (ts: number, record: OrderRecord, bizOrderId: number) => {
    balances[record.coin] = balances[record.coin]! + record.amount + record.fee;
    times[i] = ts;
    c.coin[i] = record.coin;
    c.type[i] = record.type;
    c.amount[i] = record.amount;
    c.fee[i] = record.fee === 0 ? 0 : record.fee;
    c.balance[i] = balances[record.coin]!;
    c.bizOrderId[i] = bizOrderId;
    i++;
  };
  const fill = (order: SpotOrder) => {
    const at = order.fillTimes.shift()!;
    const records = fillRecords(rng, order, balances, n - i);
    for (const record of records) write(at, record, order.bizOrderId);
    if (records.length > 0 && order.fillTimes.length > 0) schedule(pending, order);
    return records.length;
  };
  let event = 0;
  while (i < n) {
    const slot = times[i]!;
    if (pending.length > 0 && pending[0]!.fillTimes[0]! <= slot) {
      fill(pending.shift()!);
      continue;
    }
    let coin = i < coins ? i : pickCoin(rng, cumulative);
    let type: number;
    if (i < coins) type = deposit;
    else if (
      event >= coverageStart &&
      (event - coverageStart) % coverageStep === 0 &&
      (event - coverageStart) / coverageStep < typeCount
    ) {
      type = (event - coverageStart) / coverageStep;
    } else type = rng.chance(0.85) ? rng.pick(COMMON_TYPES) : rng.int(0, typeCount - 1);
    event++;
    const kind = orderKindOf(type);
    if (kind && fill(newOrder(rng, kind, slot)) > 0) continue;
    // A type that only orders write, when no fill was possible, becomes a deposit of the coin.
    if (kind) type = deposit;
    const outflow = TYPE_IS_OUTFLOW[type]!;
    if (outflow && balances[coin]! < 100) coin = richestCoin(balances);
    const granule = granuleOf(coin);
    let amount: number;
    if (outflow) {
      const share = 0.02 + rng.next() * 0.58;
      amount = -Math.max(1, Math.floor((balances[coin]! * share) / granule)) * granule;
      if (-amount > balances[coin]!) amount = -balances[coin]!;
    } else amount = randomAmount(rng, coin);
    let fee = 0;
    if (TYPE_HAS_FEE[type] && rng.chance(0.7)) fee = -Math.max(1, Math.round(Math.abs(amount) * 0.001));
    // Never below zero: a fee cannot take more than the account holds.
    if (balances[coin]! + amount + fee < 0) fee = -(balances[coin]! + amount);
    write(slot, { coin, type, amount, fee }, rng.int(1_000_000_000_000_000, 8_999_999_999_999_999));
  }
}

function schedule(pending: SpotOrder[], order: SpotOrder): void {
  const due = order.fillTimes[0]!;
  let at = pending.length;
  while (at > 0 && pending[at - 1]!.fillTimes[0]! > due) at--;
  pending.splice(at, 0, order);
}

function randomAmount(rng: Rng, coin: number): number {
  const spec = SPOT_COINS[coin]!;
  const value = Math.exp(Math.log(spec.min) + rng.next() * (Math.log(spec.max) - Math.log(spec.min)));
  const granules = Math.max(1, Math.round(value * 10 ** spec.decimals));
  return granules * 10 ** (FIXED_DECIMALS - spec.decimals);
}

function cumulativeWeights(): number[] {
  const total = SPOT_COINS.reduce((sum, spec) => sum + spec.weight, 0);
  let acc = 0;
  return SPOT_COINS.map((spec) => (acc += spec.weight / total));
}

function pickCoin(rng: Rng, cumulative: number[]): number {
  const r = rng.next();
  for (let i = 0; i < cumulative.length; i++) if (r < cumulative[i]!) return i;
  return cumulative.length - 1;
}

function richestCoin(balances: number[]): number {
  let best = 0;
  for (let i = 1; i < balances.length; i++) if (balances[i]! > balances[best]!) best = i;
  return best;
}
