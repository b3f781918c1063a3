import { MalformedResponseError } from '../errors/exchange-error.ts';
import type { ExchangeClient } from '../exchange-client.ts';
import type { DepositWithdrawalRecord, Position, SpotRecord } from '../responses/history-responses.ts';
import { exchangeBounds, HORIZON_MARGIN_MS, horizonStart, type TimeWindow } from './window-planner.ts';

/** One page of one window. Save `cursor` after handling `items`; pass it back as `resumeFrom` to go on. */
export interface Page<T> {
  items: T[];
  /** The cursor for the next (older) page. */
  cursor: string;
  /** The cursor this page was asked for with; null for the window's first page. */
  requestedWith: string | null;
}

export interface PagingOptions {
  /** A cursor saved from an earlier Page: paging continues with the page after it. */
  resumeFrom?: string | null;
  limit?: number;
}

/** Each pager asks for the largest page its endpoint allows (the spec's maximum `limit`). */
export const MAX_PAGE_SIZE = { historyPosition: 100, spotRecord: 500, allSubDepositWithdrawal: 100 } as const;

interface Fetched<T> {
  items: T[];
  next: string | null;
}

/** How a stream's cursors must move: id-paged streams (`idLessThan`) ask for ever smaller ids. */
type CursorOrder = 'decreasing-id' | 'opaque';

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
 * (docs/exchange-api.md §5.1: only an empty page ends paging; a short page does not).
 * Each cursor must be new to the window (a repeat or a cycle A, B, A would loop
 * forever) and, for id-paged streams, smaller than the one it was asked with;
 * either is a malformed answer naming both cursors. `cap` bounds the pages of a
 * window whatever the cursors do.
 */
async function* pageWindow<T>(
  endpoint: string,
  fetchPage: (cursor: string | null) => Promise<Fetched<T>>,
  resumeFrom: string | null,
  order: CursorOrder,
  cap: number,
): AsyncGenerator<Page<T>, void, undefined> {
  let cursor = resumeFrom;
  const seen = new Set<string>(cursor === null ? [] : [cursor]);
  for (let pages = 0; ; pages++) {
    if (pages >= cap) {
      throw new MalformedResponseError(
        endpoint,
        'cursor',
        `the window did not end within ${cap} pages (last cursor ${String(cursor)})`,
      );
    }
    const { items, next } = await fetchPage(cursor);
    if (items.length === 0) return;
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
    yield { items, cursor: next, requestedWith: cursor };
    cursor = next;
  }
}

/** Ids are decimal strings (docs/exchange-api.md §1.3), compared exactly; any other form is not judged. */
function isSmallerId(next: string, previous: string): boolean {
  if (!/^\d+$/.test(next) || !/^\d+$/.test(previous)) return true;
  return BigInt(next) < BigInt(previous);
}

/**
 * The oldest instant a positions request may start at now (the 3-month
 * horizon, plus half the planner's margin so a request is never refused).
 * It moves with the exchange's clock: a caller that checks it after paging
 * gets a bound no earlier than any start the pager used. Read on the
 * exchange's clock as last seen (the local one may be off it).
 */
export function positionsReadableFrom(client: ExchangeClient): number {
  return horizonStart('historyPosition', client.now(), HORIZON_MARGIN_MS / 2);
}

/**
 * Positions of one window (idLessThan = previous endId). Each page re-checks
 * the 3-month horizon: while a long window is paged the horizon moves, and a
 * startTime that fell behind it would be refused; positions that old are
 * leaving the exchange anyway.
 */
export function pageHistoryPositions(
  client: ExchangeClient,
  window: TimeWindow,
  query: { symbol?: string; productType?: 'USDT-FUTURES' | 'COIN-FUTURES' | 'USDC-FUTURES' } = {},
  options: PagingOptions = {},
): AsyncGenerator<Page<Position>, void, undefined> {
  return pageWindow(
    'historyPosition',
    async (cursor) => {
      const { startTime: from, endTime } = exchangeBounds(window);
      // The horizon is the exchange's: learn its clock before the first page is asked for.
      await client.exchangeNow();
      const startTime = Math.max(Number(from), positionsReadableFrom(client));
      if (startTime > Number(endTime)) return { items: [], next: null };
      const page = await client.historyPosition({
        ...query,
        startTime: String(startTime),
        endTime,
        limit: options.limit ?? MAX_PAGE_SIZE.historyPosition,
        idLessThan: cursor ?? undefined,
      });
      return { items: page.list, next: page.endId ?? page.list.at(-1)?.positionId ?? null };
    },
    options.resumeFrom ?? null,
    'decreasing-id',
    pageCap(window, options.limit ?? MAX_PAGE_SIZE.historyPosition),
  );
}

/** Spot finance records of one window (idLessThan = last record's id; never by time: many share one ts). */
export function pageSpotRecords(
  client: ExchangeClient,
  window: TimeWindow,
  query: { coin?: string } = {},
  options: PagingOptions = {},
): AsyncGenerator<Page<SpotRecord>, void, undefined> {
  return pageWindow(
    'spotRecord',
    async (cursor) => {
      const list = await client.spotRecord({
        ...query,
        ...exchangeBounds(window),
        limit: options.limit ?? MAX_PAGE_SIZE.spotRecord,
        idLessThan: cursor ?? undefined,
      });
      return { items: list, next: list.at(-1)?.id ?? null };
    },
    options.resumeFrom ?? null,
    'decreasing-id',
    pageCap(window, options.limit ?? MAX_PAGE_SIZE.spotRecord),
  );
}

/** Broker sub-accounts' deposits and withdrawals of one window (cursor = previous endId). */
export function pageSubDepositWithdrawals(
  client: ExchangeClient,
  window: TimeWindow,
  query: { status?: 'pending' | 'fail' | 'success' } = {},
  options: PagingOptions = {},
): AsyncGenerator<Page<DepositWithdrawalRecord>, void, undefined> {
  return pageWindow(
    'allSubDepositWithdrawal',
    async (cursor) => {
      const page = await client.allSubDepositWithdrawal({
        ...query,
        ...exchangeBounds(window),
        limit: options.limit ?? MAX_PAGE_SIZE.allSubDepositWithdrawal,
        cursor: cursor ?? undefined,
      });
      return { items: page.list, next: page.cursor ?? page.list.at(-1)?.txId ?? null };
    },
    options.resumeFrom ?? null,
    // Transfers are ordered by their last update, not by txId: their cursor is only an opaque mark.
    'opaque',
    pageCap(window, options.limit ?? MAX_PAGE_SIZE.allSubDepositWithdrawal),
  );
}
