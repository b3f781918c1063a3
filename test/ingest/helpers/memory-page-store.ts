import type { UpsertStats } from '../../../src/ingest/bulk-upsert.ts';
import type { PageToStore } from '../../../src/ingest/coverage/store-page.ts';
import { WindowConflictError } from '../../../src/ingest/coverage/window-conflict-error.ts';
import type { PageStore } from '../../../src/ingest/page-store.ts';

/** One stored page, as the store saw it. */
export interface StoredPage {
  fromCursor: string | null;
  nextCursor: string | null;
  last: boolean;
  records: readonly unknown[];
}

/**
 * The page store in memory, keeping the Postgres store's rule: a page advances its window only
 * from the stored cursor (else WindowConflictError) and only while the window is not done.
 */
export class MemoryPageStore implements PageStore {
  readonly pages: StoredPage[] = [];
  readonly narrowed: { windowId: string; start: number }[] = [];
  readonly cursor: Map<string, string | null>;
  readonly done = new Set<string>();
  /** Set to make the next storePage fail with it (a database outage). */
  failNext: Error | undefined;
  /** What endsShort answers: the page-fill evidence (src/streams/kit/page-fill.ts) as this store holds it. */
  fills = false;
  /** The page-fill evidence told to the store, in order. */
  readonly noted: { endpoint: string; limit: number; seen: 'full' | 'gap' }[] = [];

  constructor(cursors: Record<string, string | null> = {}) {
    this.cursor = new Map(Object.entries(cursors));
  }

  storePage<R>(page: PageToStore<R>): Promise<UpsertStats> {
    const failure = this.failNext;
    this.failNext = undefined;
    if (failure) return Promise.reject(failure);
    if (this.done.has(page.windowId) || (this.cursor.get(page.windowId) ?? null) !== page.fromCursor) {
      return Promise.reject(new WindowConflictError(page.windowId));
    }
    this.cursor.set(page.windowId, page.nextCursor);
    if (page.last) this.done.add(page.windowId);
    this.pages.push({
      fromCursor: page.fromCursor,
      nextCursor: page.nextCursor,
      last: page.last,
      records: page.records,
    });
    return Promise.resolve({ inserted: page.records.length, updated: 0, unchanged: 0, revised: 0 });
  }

  endsShort(): Promise<boolean> {
    return Promise.resolve(this.fills);
  }

  notePageFill(endpoint: string, limit: number, seen: 'full' | 'gap'): Promise<void> {
    this.noted.push({ endpoint, limit, seen });
    return Promise.resolve();
  }

  narrowWindowStart(windowId: string, start: number): Promise<void> {
    this.narrowed.push({ windowId, start });
    return Promise.resolve();
  }
}
