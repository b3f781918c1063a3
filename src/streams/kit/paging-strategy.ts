import type { TimeWindow } from '../../exchange/index.ts';
import type { CursorOrder, EndCheck, ResumedRead } from './page-window.ts';

/**
 * How a history is paged, named once in its declaration (`StreamDefinition.paging`): every paged
 * stream reads time windows newest to oldest by a cursor, and every one judges an empty page the
 * same way (page-window.ts, `EndCheck`): after a full page, or after a page an earlier run of the
 * read took, an empty page is the window's end only if a request without a cursor finds no record
 * of the window older than the last one read. A new stream picks a strategy by name and gets the
 * check with it; test/ingest/early-empty-page.test.ts runs it against every stream of the registry.
 *
 * - `time-windows-id-less-than`: the answer a bare array, the next page asked with
 *   `idLessThan` = the last record's id (spot-record, future-record, margin-record, p2p-record).
 *   Example: `{ startTime, endTime, limit: 500 }`, then `{ ..., idLessThan: '<last id>' }`.
 * - `time-windows-end-id`: the answer `{ list, endId }`, the next page asked with
 *   `idLessThan` = `endId` (history-position).
 * - `time-windows-cursor`: the answer `{ list, endId | cursor }`, the next page asked with
 *   `cursor` = that value, an opaque mark: records are ordered by their last update, not by id
 *   (all-sub-deposit-withdrawal).
 */
export type PagingKind = 'time-windows-id-less-than' | 'time-windows-end-id' | 'time-windows-cursor';

export interface PagingStrategy<K extends PagingKind = PagingKind> {
  readonly kind: K;
  /** The record's field the windows are cut by and its pages ordered by, newest first (Unix ms). */
  readonly time: string;
  /** How the cursors must move (page-window.ts). */
  readonly order: CursorOrder;
}

export const idLessThanPaging = (time: string): PagingStrategy<'time-windows-id-less-than'> => ({
  kind: 'time-windows-id-less-than',
  time,
  order: 'decreasing-id',
});

export const endIdPaging = (time: string): PagingStrategy<'time-windows-end-id'> => ({
  kind: 'time-windows-end-id',
  time,
  order: 'decreasing-id',
});

export const cursorPaging = (time: string): PagingStrategy<'time-windows-cursor'> => ({
  kind: 'time-windows-cursor',
  time,
  order: 'opaque',
});

/** The request bounds of a probe: the exchange's inclusive `startTime`/`endTime`. */
export interface ProbeBounds {
  startTime: string;
  endTime: string;
}

/**
 * The strategy's end check for one window: `ask` sends one request without a cursor for the
 * bounds (limit 1) and says whether it answered a record. Records sharing the last one's instant
 * are not asked for (honest paging may still owe some of them: their order within the instant is
 * the exchange's), nor anything before `readableFrom` (a horizon: the request would be refused).
 */
export function endCheckOf<T>(
  strategy: PagingStrategy,
  window: TimeWindow,
  pageSize: number,
  ask: (bounds: ProbeBounds) => Promise<boolean>,
  options: { resumed?: ResumedRead | undefined; recordOf?: (item: T) => unknown; readableFrom?: () => number } = {},
): EndCheck<T> {
  const recordOf = options.recordOf ?? ((item: T) => item);
  return {
    pageSize,
    timeOf: (item) => Number((recordOf(item) as Record<string, unknown>)[strategy.time]),
    anyBefore: async (time) => {
      const start = Math.max(window.start, options.readableFrom?.() ?? window.start);
      if (!(time > start)) return false;
      return ask({ startTime: String(start), endTime: String(time - 1) });
    },
    ...(options.resumed === undefined ? {} : { resumed: options.resumed }),
  };
}
