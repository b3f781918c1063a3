import type { TimeWindow } from '../exchange/index.ts';

/**
 * A question the balance anchors would otherwise send to the exchange
 * (balance-anchors.ts): the newest record of `coin` with startTime <= ts <=
 * endTime (and an id below `idLessThan` when set), as one spot-record
 * request with limit 1 answers it.
 */
export interface AnchorQuery {
  coin: string;
  side: 'before' | 'after';
  startTime: number;
  /** Inclusive, as the request's endTime. */
  endTime: number;
  idLessThan?: string;
  /** The stored record the answer is judged against. */
  storedId: string;
}

/** A spot record as the exchange served it. */
export interface SeenRecord {
  id: string;
  ts: number;
}

/** Ids are decimal strings: (length, text) is their numeric order. */
export function compareIds(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

/** Newest first, as the exchange orders a page: by ts, then id. */
function newer(a: SeenRecord, b: SeenRecord | undefined): boolean {
  return b === undefined || a.ts > b.ts || (a.ts === b.ts && compareIds(a.id, b.id) > 0);
}

function isSpotRecord(item: unknown): item is { id: string; coin: string; ts: string } {
  if (typeof item !== 'object' || item === null) return false;
  const r = item as Record<string, unknown>;
  return typeof r.id === 'string' && typeof r.coin === 'string' && typeof r.ts === 'string';
}

export interface RangeRead {
  /** Each record of the range as the exchange serves it. */
  see(item: unknown): void;
  /** The range was paged to its last (empty) page: its answers may now be used. */
  complete(): void;
}

/**
 * The spot window re-reads of one reconciliation (check 4), kept so that the
 * balance anchors (check 2) and the paging check (check 3) take their answers
 * from them instead of asking the exchange again, at 1 request/s, for records
 * it has just served. Same strength: each answer is the exchange's own, read
 * in this run and paged by id to the window's last page, exactly what the
 * check's own request would have returned. A question is answered from the
 * re-reads only when completed ranges cover all of it; otherwise the check
 * asks the exchange itself, as before.
 *
 * Only what those questions need is kept (one candidate per anchor, one
 * count per crowded instant), never the records: `recount all` on a large
 * account stays flat in memory.
 */
export class FreshReads {
  readonly #anchors: readonly AnchorQuery[];
  readonly #suspects: ReadonlySet<number>;
  readonly #ranges: TimeWindow[] = [];
  /** Spot ranges whose own fresh read vouches for the stored records (read-marks.ts). */
  readonly #vouched: TimeWindow[] = [];
  readonly #answers = new Map<AnchorQuery, SeenRecord>();
  readonly #counts = new Map<number, number>();
  #finish: () => void = () => undefined;
  /**
   * Settles once the re-counts have read (or given up on) every spot window:
   * the checks that ask the exchange wait for it first, so that they send
   * only what the re-reads did not answer, while the re-counts of the other
   * streams (their own budgets) still run.
   */
  readonly ready = new Promise<void>((resolve) => {
    this.#finish = resolve;
  });

  /** `crowded`: the spot instants (ts, Unix ms) the paging check will ask about. */
  constructor(anchors: readonly AnchorQuery[], crowded: Iterable<number>) {
    this.#anchors = anchors;
    this.#suspects = new Set(crowded);
  }

  /** No more spot ranges will be read in this run (idempotent). */
  finish(): void {
    this.#finish();
  }

  /** Starts the re-read of one spot range [start, end). */
  begin(range: TimeWindow): RangeRead {
    const answers = new Map<AnchorQuery, SeenRecord>();
    const counts = new Map<number, number>();
    const byCoin = new Map<string, AnchorQuery[]>();
    for (const q of this.#anchors) byCoin.set(q.coin, [...(byCoin.get(q.coin) ?? []), q]);
    return {
      see: (item) => {
        if (!isSpotRecord(item)) return;
        const seen = { id: item.id, ts: Number(item.ts) };
        if (this.#suspects.has(seen.ts)) counts.set(seen.ts, (counts.get(seen.ts) ?? 0) + 1);
        for (const q of byCoin.get(item.coin) ?? []) {
          const inside = seen.ts >= q.startTime && seen.ts <= q.endTime;
          const below = q.idLessThan === undefined || compareIds(seen.id, q.idLessThan) < 0;
          if (inside && below && newer(seen, answers.get(q))) answers.set(q, seen);
        }
      },
      complete: () => {
        this.#ranges.push(range);
        for (const [q, seen] of answers) if (newer(seen, this.#answers.get(q))) this.#answers.set(q, seen);
        // An instant lies whole in one range: the first completed range holding it has its count.
        for (const ts of this.#suspects) {
          if (ts >= range.start && ts < range.end && !this.#counts.has(ts)) this.#counts.set(ts, counts.get(ts) ?? 0);
        }
      },
    };
  }

  /**
   * A spot range not re-read because its sync's fresh read vouches for it: what the exchange
   * served for it is what is stored (read-marks.ts), so a question over it is answered from the
   * stored records as that read met them.
   */
  vouch(range: TimeWindow): void {
    this.#vouched.push(range);
  }

  /**
   * The anchor's answer (null: none on the exchange), or undefined when the re-reads and the
   * vouched ranges do not cover it. Over a vouched range the exchange served exactly the stored
   * records: an `after` question (the newest record from the coin's last stored one on) finds that
   * last record there, when it lies there, and nothing newer; a `before` question (a record older
   * than the coin's first stored one) finds nothing there, so only a re-read part can answer it.
   * (Before questions are asked by a full check and for a coin first stored since the last one:
   * every coin in the first reconciliation after a backfill, which its fresh reads now answer.)
   */
  anchorAnswer(q: AnchorQuery): SeenRecord | null | undefined {
    const reread = this.#answers.get(q) ?? null;
    if (this.#covers(this.#ranges, q.startTime, q.endTime + 1)) return reread;
    if (!this.#covers([...this.#ranges, ...this.#vouched], q.startTime, q.endTime + 1)) return undefined;
    if (q.side === 'before') return reread;
    const stored = this.#vouched.some((r) => r.start <= q.startTime && q.startTime < r.end)
      ? { id: q.storedId, ts: q.startTime }
      : null;
    return stored !== null && (reread === null || newer(stored, reread)) ? stored : reread;
  }

  /** The exchange's count of spot records at the instant, or undefined when no completed re-read holds it. */
  countAt(ts: number): number | undefined {
    return this.#counts.get(ts);
  }

  /** Whether the ranges cover [start, end) without a hole. */
  #covers(ranges: readonly TimeWindow[], start: number, end: number): boolean {
    let reached = start;
    for (const r of [...ranges].sort((a, b) => a.start - b.start)) {
      if (r.start > reached) break;
      reached = Math.max(reached, r.end);
      if (reached >= end) return true;
    }
    return reached >= end;
  }
}
