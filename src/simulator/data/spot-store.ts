import type { ByteWriter } from './byte-writer.ts';
import { COIN_JSON, SPOT_COINS } from './coins.ts';
import { FIXED_DECIMALS, formatFixed } from './fixed.ts';
import type { SpotColumns } from './spot-generator.ts';
import { SPOT_TAX_TYPES, TYPE_JSON } from './spot-tax-types.ts';

const COIN_BYTES = COIN_JSON.map((json) => Buffer.from(json, 'utf8'));
const TYPE_BYTES = TYPE_JSON.map((json) => Buffer.from(json, 'utf8'));
import { lowerBound, lowerBoundVia } from './time.ts';

export interface SpotRecord {
  id: string;
  coin: string;
  spotTaxType: string;
  amount: string;
  fee: string;
  balance: string;
  bizOrderId: string;
  ts: string;
}

export interface SpotQuery {
  /** Index into SPOT_COINS; undefined = all coins; -1 = a coin with no records. */
  coin?: number;
  startTime: number;
  endTime: number;
  /** Only records with an id below this. */
  idLessThan?: number;
  limit: number;
  /** The simulated clock: later records do not exist yet. */
  now: number;
}

/**
 * Sorted columns plus one position index per coin: a page is two binary
 * searches and `limit` steps, whatever the store's size.
 */
export class SpotStore {
  readonly #c: SpotColumns;
  readonly #byCoin: Uint32Array[];

  constructor(columns: SpotColumns) {
    this.#c = columns;
    const counts = new Array<number>(SPOT_COINS.length).fill(0);
    for (let i = 0; i < columns.coin.length; i++) counts[columns.coin[i]!]!++;
    this.#byCoin = counts.map((count) => new Uint32Array(count));
    const fill = new Array<number>(SPOT_COINS.length).fill(0);
    for (let i = 0; i < columns.coin.length; i++) {
      const coin = columns.coin[i]!;
      this.#byCoin[coin]![fill[coin]!++] = i;
    }
  }

  get size(): number {
    return this.#c.ids.length;
  }

  /** Positions of the matching records, newest first. */
  query(q: SpotQuery): number[] {
    if (q.coin === -1) return [];
    const last = Math.min(q.endTime, q.now);
    if (last < q.startTime) return [];
    let below = (last + 1) * 1000;
    if (q.idLessThan !== undefined && q.idLessThan < below) below = q.idLessThan;
    const from = q.startTime * 1000;
    const ids = this.#c.ids;
    const out: number[] = [];
    if (q.coin === undefined) {
      const hi = lowerBound(ids, below);
      const lo = Math.max(lowerBound(ids, from), hi - q.limit);
      for (let i = hi - 1; i >= lo; i--) out.push(i);
      return out;
    }
    const index = this.#byCoin[q.coin]!;
    const hi = lowerBoundVia(index, ids, below);
    const lo = Math.max(lowerBoundVia(index, ids, from), hi - q.limit);
    for (let k = hi - 1; k >= lo; k--) out.push(index[k]!);
    return out;
  }

  /** Every record visible at `now`, newest first. */
  visible(now: number): number[] {
    const hi = lowerBound(this.#c.ids, (now + 1) * 1000);
    const out = new Array<number>(hi);
    for (let i = 0; i < hi; i++) out[i] = hi - 1 - i;
    return out;
  }

  /** Writes the JSON array of the records at the given positions, byte by byte (the hot path of paging). */
  writeJson(positions: readonly number[], out: ByteWriter): void {
    const c = this.#c;
    out.byte(91);
    for (let k = 0; k < positions.length; k++) {
      const i = positions[k]!;
      const id = c.ids[i]!;
      if (k > 0) out.byte(44);
      out.ascii('{"id":"').integer(id).ascii('","coin":').bytes(COIN_BYTES[c.coin[i]!]!);
      out.ascii(',"spotTaxType":').bytes(TYPE_BYTES[c.type[i]!]!);
      out.ascii(',"amount":"').fixed(c.amount[i]!, FIXED_DECIMALS);
      out.ascii('","fee":"').fixed(c.fee[i]!, FIXED_DECIMALS);
      out.ascii('","balance":"').fixed(c.balance[i]!, FIXED_DECIMALS);
      out.ascii('","bizOrderId":"').integer(c.bizOrderId[i]!);
      out
        .ascii('","ts":"')
        .integer(Math.floor(id / 1000))
        .ascii('"}');
    }
    out.byte(93);
  }

  /**
   * A copy of this store holding one more record, in id order: the exchange publishing a record
   * late, into time a client may have read already (tests swap it into the account's data).
   * Amounts in units of 10^-FIXED_DECIMALS, as the columns hold them.
   */
  withRecord(r: { id: number; coin: number; type: number; amount: number; fee: number; balance: number }): SpotStore {
    const c = this.#c;
    const at = lowerBound(c.ids, r.id);
    if (c.ids[at] === r.id) throw new Error(`spot record ${r.id} exists`);
    const insert = <T extends Float64Array | Uint8Array>(column: T, value: number): T => {
      const out = new (column.constructor as new (n: number) => T)(column.length + 1);
      out.set(column.subarray(0, at));
      out[at] = value;
      out.set(column.subarray(at), at + 1);
      return out;
    };
    return new SpotStore({
      ids: insert(c.ids, r.id),
      coin: insert(c.coin, r.coin),
      type: insert(c.type, r.type),
      amount: insert(c.amount, r.amount),
      fee: insert(c.fee, r.fee),
      balance: insert(c.balance, r.balance),
      bizOrderId: insert(c.bizOrderId, r.id),
    });
  }

  /** The id of the record at a position (the paging cursor). */
  id(i: number): string {
    return String(this.#c.ids[i]!);
  }

  record(i: number): SpotRecord {
    const c = this.#c;
    const id = c.ids[i]!;
    return {
      id: String(id),
      coin: SPOT_COINS[c.coin[i]!]!.coin,
      spotTaxType: SPOT_TAX_TYPES[c.type[i]!]!,
      amount: formatFixed(c.amount[i]!),
      fee: formatFixed(c.fee[i]!),
      balance: formatFixed(c.balance[i]!),
      bizOrderId: String(c.bizOrderId[i]!),
      ts: String(Math.floor(id / 1000)),
    };
  }
}

export function emptySpotColumns(): SpotColumns {
  return {
    ids: new Float64Array(0),
    coin: new Uint8Array(0),
    type: new Uint8Array(0),
    amount: new Float64Array(0),
    fee: new Float64Array(0),
    balance: new Float64Array(0),
    bizOrderId: new Float64Array(0),
  };
}
