import { lowerBound } from './time.ts';

/** A record of a wallet ledger (margin, P2P): its id is ts * 1000 + sequence, so ids ascend with (ts, sequence). */
export interface LedgerRow {
  id: number;
  ts: number;
}

export interface LedgerQuery<R> {
  /** Which records the request asks for (its scope and coin). */
  matches(row: R): boolean;
  startTime: number;
  endTime: number;
  idLessThan?: number;
  limit: number;
  now: number;
}

/**
 * A wallet ledger's records, ascending by id, served newest first by (ts, id) with `idLessThan`
 * paging like spot-record's: the records of [startTime, min(endTime, now)] below the cursor.
 */
export class LedgerStore<R extends LedgerRow> {
  readonly #rows: readonly R[];
  readonly #ids: Float64Array;

  constructor(rows: readonly R[]) {
    this.#rows = rows;
    this.#ids = Float64Array.from(rows.map((r) => r.id));
  }

  get size(): number {
    return this.#rows.length;
  }

  query(q: LedgerQuery<R>): R[] {
    const last = Math.min(q.endTime, q.now);
    if (last < q.startTime) return [];
    let below = (last + 1) * 1000;
    if (q.idLessThan !== undefined && q.idLessThan < below) below = q.idLessThan;
    const floor = q.startTime * 1000;
    const out: R[] = [];
    for (let k = lowerBound(this.#ids, below) - 1; k >= 0 && out.length < q.limit; k--) {
      if (this.#ids[k]! < floor) break;
      const row = this.#rows[k]!;
      if (q.matches(row)) out.push(row);
    }
    return out;
  }

  /** Every record visible at `now`, newest first. */
  visible(now: number): R[] {
    const hi = lowerBound(this.#ids, (now + 1) * 1000);
    return this.#rows.slice(0, hi).reverse();
  }
}

/** Ids ts * 1000 + sequence for rows sorted by ts (stable): at most 999 share one ts. */
export function assignIds<R extends { ts: number }>(rows: R[], label: string): (R & { id: number })[] {
  let seq = 0;
  return rows.map((row, i) => {
    seq = i > 0 && row.ts === rows[i - 1]!.ts ? seq + 1 : 0;
    if (seq >= 1000) throw new Error(`${label}: more than 999 records share one ts`);
    return { ...row, id: row.ts * 1000 + seq };
  });
}
