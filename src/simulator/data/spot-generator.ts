import { Rng } from '../prng.ts';
import { SPOT_COINS } from './coins.ts';
import { FIXED_DECIMALS } from './fixed.ts';
import { MAX_BURST } from './scale.ts';
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
  let seq = 0;
  for (let i = 0; i < n; i++) {
    seq = i > 0 && times[i] === times[i - 1] ? seq + 1 : 0;
    if (seq >= ID_FACTOR) throw new Error('spot generator: more than 999 records share one ts');
    columns.ids[i] = times[i]! * ID_FACTOR + seq;
  }
  fillValues(rng, columns);
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

function fillValues(rng: Rng, c: SpotColumns): void {
  const n = c.ids.length;
  const coins = SPOT_COINS.length;
  const balances = new Array<number>(coins).fill(0);
  const cumulative = cumulativeWeights();
  const deposit = SPOT_TAX_TYPES.indexOf('Deposit');
  // Every spotTaxType appears: forced at evenly spaced positions after the opening deposits.
  const typeCount = SPOT_TAX_TYPES.length;
  const coverageStart = Math.max(coins, Math.floor(n * 0.1));
  const coverageStep = Math.max(1, Math.floor((n - coverageStart) / (typeCount + 1)));
  for (let i = 0; i < n; i++) {
    let coin = i < coins ? i : pickCoin(rng, cumulative);
    let type: number;
    if (i < coins) type = deposit;
    else if (
      i >= coverageStart &&
      (i - coverageStart) % coverageStep === 0 &&
      (i - coverageStart) / coverageStep < typeCount
    ) {
      type = (i - coverageStart) / coverageStep;
    } else type = rng.chance(0.85) ? rng.pick(COMMON_TYPES) : rng.int(0, typeCount - 1);
    const outflow = TYPE_IS_OUTFLOW[type]!;
    if (outflow && balances[coin]! < 100) coin = richestCoin(balances);
    const granule = 10 ** (FIXED_DECIMALS - SPOT_COINS[coin]!.decimals);
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
    balances[coin] = balances[coin]! + amount + fee;
    c.coin[i] = coin;
    c.type[i] = type;
    c.amount[i] = amount;
    c.fee[i] = fee === 0 ? 0 : fee;
    c.balance[i] = balances[coin]!;
    c.bizOrderId[i] = rng.int(1_000_000_000_000_000, 8_999_999_999_999_999);
  }
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
