import type pg from 'pg';

import { endsShortUnlessCanary, PAGE_FILL_CANARY_EVERY, PAGE_FILL_EVIDENCE_DAYS } from '../../streams/kit/page-fill.ts';
import type { PageStore } from '../page-store.ts';
import { endsShort, recordFullPage, recordPageGap } from './page-fill-evidence.ts';
import { resumedRead } from './resumed-read.ts';
import { storePage } from './store-page.ts';
import { narrowWindowStart } from './window-store.ts';

const DAY = 86_400_000;

export interface PageStoreOptions {
  /** PAGE_FILL_EVIDENCE_DAYS in ms: how recent a full page must be for a short page to end a window (0: never). */
  pageFillEvidenceMs?: number;
  /** PAGE_FILL_CANARY_EVERY: one window in this many is read to its empty page anyway (0: none). */
  pageFillCanaryEvery?: number;
}

/** The page store on the sync_window table and the streams' tables. */
export function postgresPageStore(pool: pg.Pool, options: PageStoreOptions = {}): PageStore {
  const periodMs = options.pageFillEvidenceMs ?? PAGE_FILL_EVIDENCE_DAYS * DAY;
  const canaryEvery = options.pageFillCanaryEvery ?? PAGE_FILL_CANARY_EVERY;
  return {
    storePage: (page) => storePage(pool, page),
    narrowWindowStart: (windowId, start) => narrowWindowStart(pool, windowId, start),
    resumedRead: (window) => resumedRead(pool, window),
    endsShort: async (endpoint, limit) =>
      endsShortUnlessCanary(await endsShort(pool, endpoint, limit, periodMs), canaryEvery),
    notePageFill: (endpoint, limit, seen) =>
      seen === 'full' ? recordFullPage(pool, endpoint, limit) : recordPageGap(pool, endpoint, limit),
  };
}
