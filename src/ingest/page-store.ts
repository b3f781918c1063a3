import type { UpsertStats } from './bulk-upsert.ts';
import type { PageToStore } from './coverage/store-page.ts';

/**
 * What running a window writes: each page with its window's cursor (atomically, and only from the
 * cursor the page was requested with), and a start moved past the exchange's horizon. Postgres in
 * production (postgresPageStore); an in-memory one in unit tests.
 */
export interface PageStore {
  storePage<R>(page: PageToStore<R>): Promise<UpsertStats>;
  narrowWindowStart(windowId: string, start: number): Promise<void>;
}
