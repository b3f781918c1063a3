import { MalformedResponseError, type TimeWindow } from '../../exchange/index.ts';
import type { PageFill } from './page-fill.ts';

/** One page of one window. Save `cursor` after handling `items`; pass it back as `resumeFrom` to go on. */
export interface Page<T> {
  items: T[];
  /** The cursor for the next (older) page. */
  cursor: string;
  /** The cursor this page was asked for with; null for the window's first page. */
  requestedWith: string | null;
  /** The `limit` the page was asked for with, when the pager was told it (page-fill.ts). */
  asked?: number;
  /**
   * Set on a page that follows one shorter than `asked` in the same read: the endpoint does not
   * fill its pages to the limit (page-fill.ts calls it a gap), and short pages must not end windows.
   */
  afterShort?: boolean;
  /** The window's last page: shorter than `asked`, taken as the end on fresh evidence; no empty page follows. */
  last?: boolean;
  /**
   * Set on the empty page that ended the window after a full page (or after a page an earlier run
   * read): the end was probed (EndCheck), or could not be, and the read must not vouch for itself
   * (src/reconcile/read-marks.ts). Such a page is yielded, empty and `last`, so the store records it.
   */
  endedAfterFullPage?: boolean;
}

export interface PagingOptions {
  /** A cursor saved from an earlier Page: paging continues with the page after it. */
  resumeFrom?: string | null;
  limit?: number;
  /** Fresh evidence that the endpoint fills its pages (page-fill.ts): a short page ends the window. */
  endsShort?: boolean;
  /** A resumed read: what its earlier runs left behind (EndCheck.resumed). */
  resumed?: ResumedRead | undefined;
}

export interface Fetched<T> {
  items: T[];
  next: string | null;
}

/**
 * What tells an empty page that ends a window from one that lies (issue 34 finding 6, issue 43):
 * after a full page (`pageSize` records), or after a page an earlier run read (a read resumed
 * from its stored cursor: its last page's size is not known here), an empty one is taken as the
 * end only when `anyBefore` (a request without a cursor for the window's records older than the
 * last one read) finds none. Built from the stream's paging strategy (paging-strategy.ts).
 */
export interface EndCheck<T> {
  pageSize: number;
  /** The instant (Unix ms) the record is ordered by within its window: pages run newest to oldest by it. */
  timeOf: (record: T) => number;
  /** Whether the window holds records before `time` (Unix ms), asked without a cursor. */
  anyBefore: (time: number) => Promise<boolean>;
  /** A read resumed from a stored cursor: what its earlier runs left behind. */
  resumed?: ResumedRead;
}

/** What a read resumed from its stored cursor left behind, for judging an empty page answered now. */
export interface ResumedRead {
  /** The records of the last page it stored (null: not known, judged as a full page). */
  readonly lastPageRows: number | null;
  /**
   * The instant (Unix ms) of the oldest record it stored in the window: its last one read, pages
   * running newest to oldest. Undefined when not known: an empty page after a full one is then
   * taken as the end unproven (the read does not vouch for itself, read-marks.ts).
   */
  readonly reachedAt?: number | undefined;
}

/** How a stream's cursors must move: id-paged streams (`idLessThan`) ask for ever smaller ids. */
export type CursorOrder = 'decreasing-id' | 'opaque';

/**
 * The most pages one window may take: as many as a window holding one record per second of its
 * span would need, and never fewer than 100. That is far beyond any account this was sized for
 * (the bench scale, 1M spot records a year, averages 0.03 a second), so only an exchange that
 * never stops answering non-empty pages reaches it; without it such a window would spend the
 * account's whole rate budget forever. Spot (30 days, 500 a page): 5,184 pages; positions (90
 * days, 100): 77,760; transfers (7 days, 100): 6,048.
 */
export function pageCap(window: TimeWindow, pageSize: number): number {
  return Math.max(100, Math.ceil((window.end - window.start) / 1_000 / pageSize));
}

/**
 * Pages one window newest to oldest until the exchange answers an empty page
 * (docs/exchange-api.md §5.1), or, when `fill.endsShort` (fresh evidence that the
 * endpoint fills its pages to the limit, page-fill.ts), a page of fewer than
 * `fill.limit` items: that page is the window's last, and no empty page is asked.
 * Without the evidence a short page does not end paging; one followed by more items
 * marks the next page `afterShort` (evidence against filling, for the caller to keep).
 * Each cursor must be new to the window (a repeat or a cycle A, B, A would loop
 * forever) and, for id-paged streams, smaller than the one it was asked with;
 * either is a malformed answer naming both cursors. `cap` bounds the pages of a
 * window whatever the cursors do. An empty page is refused the same way when it
 * cannot be the window's end: its own cursor (endId) says more follows, or it
 * follows a full page (or a resumed read's earlier page) while `ends` finds older
 * records (the window is retried, then failed, never marked done with a stretch
 * missing). An empty page taken as the end after such a page is yielded (empty,
 * `last`, `endedAfterFullPage`): the read it ends does not vouch for itself.
 */
export async function* pageWindow<T>(
  endpoint: string,
  fetchPage: (cursor: string | null) => Promise<Fetched<T>>,
  resumeFrom: string | null,
  order: CursorOrder,
  cap: number,
  ends: EndCheck<T>,
  fill?: PageFill,
): AsyncGenerator<Page<T>, void, undefined> {
  let cursor = resumeFrom;
  const seen = new Set<string>(cursor === null ? [] : [cursor]);
  let previous: T[] = [];
  const short = (items: readonly T[]) => fill !== undefined && items.length < fill.limit;
  for (let pages = 0; ; pages++) {
    if (pages >= cap) {
      throw new MalformedResponseError(
        endpoint,
        'cursor',
        `the window did not end within ${cap} pages (last cursor ${String(cursor)})`,
      );
    }
    const { items, next } = await fetchPage(cursor);
    if (items.length === 0) {
      if (await refuseEarlyEnd(endpoint, cursor, next, previous, ends)) {
        yield { items: [], cursor: cursor!, requestedWith: cursor, last: true, endedAfterFullPage: true };
      }
      return;
    }
    if (next === null || next === cursor) {
      throw new MalformedResponseError(endpoint, 'cursor', `the page cursor did not advance (${String(next)})`);
    }
    if (seen.has(next)) {
      throw new MalformedResponseError(
        endpoint,
        'cursor',
        `the page asked with cursor ${String(cursor)} answered cursor ${next}, which this window already read: cursors must move strictly forward`,
      );
    }
    if (order === 'decreasing-id' && cursor !== null && !isSmallerId(next, cursor)) {
      throw new MalformedResponseError(
        endpoint,
        'cursor',
        `the page asked with cursor ${cursor} answered cursor ${next}: ids must decrease from page to page`,
      );
    }
    seen.add(next);
    const page: Page<T> = { items, cursor: next, requestedWith: cursor };
    if (fill !== undefined) page.asked = fill.limit;
    if (previous.length > 0 && short(previous)) page.afterShort = true;
    // The evidence says the exchange fills its pages: fewer items than asked for are the last.
    if (fill?.endsShort && short(items)) page.last = true;
    yield page;
    if (page.last) return;
    cursor = next;
    previous = items;
  }
}

/**
 * Throws when an empty page cannot be the window's end (see pageWindow); otherwise whether it
 * ended the window after a full page, or after a page of an earlier run (true: not for the read to
 * vouch for).
 */
async function refuseEarlyEnd<T>(
  endpoint: string,
  cursor: string | null,
  next: string | null,
  previous: readonly T[],
  ends: EndCheck<T>,
): Promise<boolean> {
  const asked = cursor === null ? 'the first page' : `the page asked with cursor ${cursor}`;
  if (next !== null) {
    throw new MalformedResponseError(
      endpoint,
      'list',
      `${asked} answered an empty list with the cursor ${next} for a next page: an empty page before the window's end`,
    );
  }
  if (cursor === null) return false; // the window's first page: an empty window
  const last = previous.at(-1);
  // The page before: read in this run, or the last one an earlier run stored (a resume).
  const size = last === undefined ? (ends.resumed?.lastPageRows ?? null) : previous.length;
  if (size !== null && size < ends.pageSize) return false;
  const before = last === undefined ? ends.resumed?.reachedAt : ends.timeOf(last);
  if (before !== undefined && (await ends.anyBefore(before))) {
    const after =
      last === undefined
        ? `after a page of an earlier run (${size ?? 'size not known'})`
        : `after a full page of ${ends.pageSize}`;
    throw new MalformedResponseError(
      endpoint,
      'list',
      `${asked} answered an empty list ${after}, but the window holds older records: an empty page before the window's end`,
    );
  }
  return true;
}

/** Ids are decimal strings (docs/exchange-api.md §1.3), compared exactly; any other form is not judged. */
function isSmallerId(next: string, previous: string): boolean {
  if (!/^\d+$/.test(next) || !/^\d+$/.test(previous)) return true;
  return BigInt(next) < BigInt(previous);
}
