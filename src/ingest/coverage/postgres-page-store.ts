import type pg from 'pg';

import type { PageStore } from '../page-store.ts';
import { storePage } from './store-page.ts';
import { narrowWindowStart } from './window-store.ts';

/** The page store on the sync_window table and the streams' tables. */
export function postgresPageStore(pool: pg.Pool): PageStore {
  return {
    storePage: (page) => storePage(pool, page),
    narrowWindowStart: (windowId, start) => narrowWindowStart(pool, windowId, start),
  };
}
