import { formatFixed } from './fixed.ts';
import { lowerBound, lowerBoundVia } from './time.ts';
import {
  FINAL_STATUSES,
  TRANSFER_COINS,
  TRANSFER_SUBTYPES,
  TRANSFER_TYPES,
  type TransferColumns,
} from './transfer-generator.ts';

export type TransferStatus = 'pending' | 'success' | 'fail';

export interface TransferRecord {
  uid: string;
  txId: string;
  coin: string;
  type: string;
  subType: string;
  amount: string;
  status: TransferStatus;
  ts: string;
}

export interface TransferQuery {
  startTime: number;
  endTime: number;
  status?: TransferStatus;
  /** txId of the last record of the previous page. */
  cursor?: number;
  limit: number;
  now: number;
}

interface Item {
  i: number;
  ts: number;
}

/** Answers queries about the records as they stand at a given clock: ts and status move when a record settles. */
export class TransferStore {
  readonly #c: TransferColumns;
  readonly #uids: readonly string[];

  constructor(columns: TransferColumns, uids: readonly string[]) {
    this.#c = columns;
    this.#uids = uids;
  }

  get size(): number {
    return this.#c.txIds.length;
  }

  query(q: TransferQuery): Item[] {
    const last = Math.min(q.endTime, q.now);
    if (last < q.startTime) return [];
    const items = this.#window(q.startTime, last, q.now);
    const filtered = q.status === undefined ? items : items.filter((item) => this.status(item.i, q.now) === q.status);
    filtered.sort((a, b) => b.ts - a.ts || this.#c.txIds[b.i]! - this.#c.txIds[a.i]!);
    let from = 0;
    if (q.cursor !== undefined) {
      const [cursorTs, cursorId] = this.#cursorKey(q.cursor, q.now);
      from = filtered.findIndex(
        (item) => item.ts < cursorTs || (item.ts === cursorTs && this.#c.txIds[item.i]! < cursorId),
      );
      if (from < 0) return [];
    }
    return filtered.slice(from, from + q.limit);
  }

  /** Every record visible at `now`, newest first by (ts, txId). */
  visible(now: number): Item[] {
    return this.query({ startTime: 0, endTime: now, limit: Number.MAX_SAFE_INTEGER, now });
  }

  status(i: number, now: number): TransferStatus {
    return this.#c.settle[i]! <= now ? FINAL_STATUSES[this.#c.final[i]!]! : 'pending';
  }

  record(item: Item, now: number): TransferRecord {
    const c = this.#c;
    const i = item.i;
    return {
      uid: this.#uids[c.uid[i]!]!,
      txId: String(c.txIds[i]!),
      coin: TRANSFER_COINS[c.coin[i]!]!,
      type: TRANSFER_TYPES[c.type[i]!]!,
      subType: TRANSFER_SUBTYPES[c.subType[i]!]!,
      amount: formatFixed(c.amount[i]!),
      status: this.status(i, now),
      ts: String(item.ts),
    };
  }

  /** Settled records by their settle time, plus still-pending ones by their creation time. */
  #window(start: number, last: number, now: number): Item[] {
    const c = this.#c;
    const items: Item[] = [];
    const sLo = lowerBoundVia(c.bySettle, c.settle, start);
    const sHi = lowerBoundVia(c.bySettle, c.settle, last + 1);
    for (let k = sLo; k < sHi; k++) {
      const i = c.bySettle[k]!;
      items.push({ i, ts: c.settle[i]! });
    }
    const cLo = lowerBound(c.created, start);
    const cHi = lowerBound(c.created, last + 1);
    for (let i = cLo; i < cHi; i++) if (c.settle[i]! > now) items.push({ i, ts: c.created[i]! });
    return items;
  }

  /** The (ts, txId) a cursor stands for; an unknown txId is placed at its creation time. */
  #cursorKey(cursor: number, now: number): [number, number] {
    const c = this.#c;
    const i = lowerBound(c.txIds, cursor);
    if (i < c.txIds.length && c.txIds[i] === cursor) {
      return [c.settle[i]! <= now ? c.settle[i]! : c.created[i]!, cursor];
    }
    return [Math.floor(cursor / 1000), cursor];
  }
}
