import type { ResumedRead } from '../streams/kit/page-window.ts';
import type { UpsertStats } from './bulk-upsert.ts';
import type { PageToStore } from './coverage/store-page.ts';
import type { SyncWindowRow } from './coverage/window-store.ts';

/**
 * What running a window writes: each page with its window's cursor (atomically, and only from the
 * cursor the page was requested with), and a start moved past the exchange's horizon. Postgres in
 * production (postgresPageStore); an in-memory one in unit tests.
 */
export interface PageStore {
  storePage<R>(page: PageToStore<R>): Promise<UpsertStats>;
  narrowWindowStart(windowId: string, start: number): Promise<void>;
  /**
   * A read resumed from its stored cursor: the size of the last page it stored and the instant of
   * the oldest record it stored or met in its window (its last one read: pages run newest to
   * oldest), for judging an empty page answered now (src/streams/kit/page-window.ts, EndCheck).
   */
  resumedRead?(window: SyncWindowRow): Promise<ResumedRead>;
  /**
   * Whether the endpoint fills its pages at `limit` (fresh evidence, src/streams/kit/page-fill.ts),
   * so a short page ends a window; a store without it asks every window's empty page.
   */
  endsShort?(endpoint: string, limit: number): Promise<boolean>;
  /** Keeps what a stored page showed: a full page (`full`), or more records after a short one (`gap`). */
  notePageFill?(endpoint: string, limit: number, seen: 'full' | 'gap'): Promise<void>;
}
