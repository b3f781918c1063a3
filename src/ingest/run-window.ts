import { type ExchangeClient, HORIZON_MARGIN_MS } from '../exchange/index.ts';
import type { Page, ResumedRead } from '../streams/kit/page-window.ts';
import { streamDefinition } from '../streams/registry.ts';
import { WindowLostError } from './coverage/window-lost-error.ts';
import type { SyncWindowRow } from './coverage/window-store.ts';
import type { PageStore } from './page-store.ts';

export interface WindowRunResult {
  /** Whether the window reached its last page (false: stopped early on request). */
  done: boolean;
  pages: number;
  rows: number;
  inserted: number;
  updated: number;
  /** Records the exchange changed since an earlier read: updated, each old `raw` kept in record_revision. */
  revised: number;
  /** Set when the window's start had passed the exchange's horizon: it was read from here. */
  readFrom?: number;
  /**
   * With `readFrom`: the window was planned to start at the horizon itself (a backfill's oldest
   * window) and the horizon moved on by minutes only while it waited its turn: expected, not news
   * to an operator (a window that waited days lost days of records: that is).
   */
  plannedAtHorizon?: boolean;
}

export interface RunWindowOptions {
  /** Where pages and the window's progress go: postgresPageStore(pool) in production. */
  store: PageStore;
  client: ExchangeClient;
  window: SyncWindowRow;
  /**
   * The window's pages from a cursor; default: its stream's pager through `client`. Tests pass a fake.
   * `endsShort`: the store's evidence that the endpoint fills its pages (a short page is the last).
   */
  pager?: (resumeFrom: string | null, endsShort: boolean, resumed?: ResumedRead) => AsyncIterable<Page<unknown>>;
  /** Checked between pages: when set, the run stops after the page in hand is stored. */
  shouldStop?: () => boolean;
  /**
   * Checked as each page arrives: when set, no next page is asked for and the run stops once
   * this one is stored (a job giving its worker slot to others), so no request is wasted.
   */
  shouldYield?: () => boolean;
  onPage?: (progress: WindowRunResult) => void | Promise<void>;
}

/**
 * Reads one window from its stored cursor to its end, storing each page with
 * the cursor in one transaction. Stopping early (shutdown) or failing leaves
 * the window at its last stored page; the next run resumes there.
 */
export async function runWindow(options: RunWindowOptions): Promise<WindowRunResult> {
  const { store, client, window } = options;
  const definition = streamDefinition(window.stream);
  const result: WindowRunResult = { done: false, pages: 0, rows: 0, inserted: 0, updated: 0, revised: 0 };
  let cursor = window.cursor;
  const { name: endpoint, pageLimit } = definition.endpoint;
  // Asked once a run: a window's pages are judged by the evidence as it stood when they were asked for.
  const endsShort = (await store.endsShort?.(endpoint, pageLimit)) ?? false;
  // A resumed read: where it got to, so an empty page answered now is judged like one after a full page.
  const resumed = cursor === null ? undefined : await store.resumedRead?.(window);
  const pages =
    options.pager?.(cursor, endsShort, resumed) ??
    definition.pages(client, window, window.scope, cursor, { endsShort, resumed });
  const iterator = pages[Symbol.asyncIterator]();
  // While one page is being stored, the next is already being fetched: the
  // exchange's latency and the database's write overlap instead of adding up.
  let next = iterator.next();
  const storeAs = (
    records: readonly unknown[],
    fromCursor: string | null,
    nextCursor: string | null,
    last: boolean,
    endedAfterFullPage = false,
  ) =>
    store.storePage({
      windowId: window.id,
      accountId: window.accountId,
      spec: definition.table,
      records,
      fromCursor,
      nextCursor,
      last,
      endedAfterFullPage,
    });
  try {
    for (;;) {
      const { value: page, done } = await next;
      if (done) break;
      const yielding = options.shouldYield?.() ?? false;
      if (!yielding && !page.last) {
        next = iterator.next();
        // A failure of the prefetch surfaces when it is awaited; until then it must not count as unhandled.
        next.catch(() => undefined);
      }
      // A short page taken as the end (page.last) completes the window as it is stored.
      if (page.last) await checkHorizon(options, result);
      // An empty last page (endedAfterFullPage) ends the window as the empty page below does, marked unvouched.
      const stats = await storeAs(
        page.items,
        page.requestedWith,
        page.cursor,
        page.last ?? false,
        page.endedAfterFullPage ?? false,
      );
      // Stored first: the evidence is of pages the store holds.
      if (page.afterShort && page.asked !== undefined) await store.notePageFill?.(endpoint, page.asked, 'gap');
      if (page.asked !== undefined && page.items.length === page.asked) {
        await store.notePageFill?.(endpoint, page.asked, 'full');
      }
      cursor = page.cursor;
      // The empty page that ended the window counts as a request, as the one below does.
      result.pages += 1;
      result.rows += page.items.length;
      result.inserted += stats.inserted;
      result.updated += stats.updated;
      result.revised += stats.revised;
      await options.onPage?.(result);
      if (page.last) {
        result.done = true;
        return result;
      }
      if (yielding || options.shouldStop?.()) return result;
    }
  } finally {
    // Stopping early: close the pager (its in-flight fetch is simply dropped).
    await iterator.return?.(undefined).catch(() => undefined);
  }
  await checkHorizon(options, result);
  // The exchange answered the empty page that ends paging: the window is complete.
  await storeAs([], cursor, cursor, true);
  result.done = true;
  return result;
}

/** How far the horizon may slide past a window planned at it, while it waits its turn, unremarked. */
export const HORIZON_SLID_WHILE_QUEUED_MS = 10 * 60_000;

/**
 * For a stream with a horizon, after the window's last request (so no earlier than any start the
 * pager used): a start the horizon has passed is narrowed to where the window was read from, or,
 * when the whole window has passed it, the window is lost.
 */
async function checkHorizon(options: RunWindowOptions, result: WindowRunResult): Promise<void> {
  const { store, client, window } = options;
  const horizon = streamDefinition(window.stream).horizon;
  const readableFrom = horizon?.servedFrom(client);
  if (horizon !== undefined && readableFrom !== undefined && readableFrom > window.start) {
    if (readableFrom >= window.end) throw new WindowLostError(window.id, window.end, readableFrom);
    await store.narrowWindowStart(window.id, readableFrom);
    result.readFrom = readableFrom;
    // The planner starts such a window at the horizon of its "now" (oldestReadable, with its margin):
    // within that margin again of the horizon when the row was made, it was planned there (the
    // margin absorbs the database's and the exchange's clocks' difference).
    result.plannedAtHorizon =
      window.createdAt !== undefined &&
      window.start <= horizon.oldestReadable(window.createdAt) + HORIZON_MARGIN_MS &&
      readableFrom - window.start <= HORIZON_SLID_WHILE_QUEUED_MS;
  }
}
