import { describe, expect, it } from 'vitest';

import { runWindow } from '../../src/ingest/run-window.ts';
import { type Fetched, pageWindow } from '../../src/streams/kit/page-window.ts';
import { MemoryPageStore } from './helpers/memory-page-store.ts';
import { offlineClient, spotWindow } from './helpers/offline-window.ts';

const LIMIT = 3;
/** The fake's empty page is its honest end: no older record is ever found. */
const NO_OLDER = { pageSize: LIMIT, timeOf: () => 0, anyBefore: async () => false };

const window = spotWindow();
const client = offlineClient;

/** Records with ids `total` down to 1, at most `serves` a page; the cursors asked are kept. */
function exchange(total: number, serves = LIMIT) {
  const asked: (string | null)[] = [];
  const fetchPage = async (cursor: string | null): Promise<Fetched<{ id: string }>> => {
    asked.push(cursor);
    const below = cursor === null ? total + 1 : Number(cursor);
    const items: { id: string }[] = [];
    for (let id = below - 1; id >= 1 && items.length < serves; id--) items.push({ id: String(id) });
    return { items, next: items.at(-1)?.id ?? null };
  };
  const pager = (resumeFrom: string | null, endsShort: boolean) =>
    pageWindow('spotRecord', fetchPage, resumeFrom, 'decreasing-id', 100, NO_OLDER, { limit: LIMIT, endsShort });
  return { asked, pager };
}

describe('runWindow with page-fill evidence', () => {
  it('stores a short page as the last when the store has fresh evidence: done, no empty page asked', async () => {
    const store = new MemoryPageStore({ w1: null });
    store.fills = true;
    const fake = exchange(7);
    const result = await runWindow({ store, client, window, pager: fake.pager });
    expect(fake.asked).toEqual([null, '5', '2']);
    expect(store.pages.map((p) => [p.fromCursor, p.nextCursor, p.last, p.records.length])).toEqual([
      [null, '5', false, 3],
      ['5', '2', false, 3],
      ['2', '1', true, 1],
    ]);
    // pages counts requests, as it did when the empty page closed the window.
    expect(result).toMatchObject({ done: true, pages: 3, rows: 7 });
    expect(store.noted).toEqual([
      { endpoint: 'spotRecord', limit: LIMIT, seen: 'full' },
      { endpoint: 'spotRecord', limit: LIMIT, seen: 'full' },
    ]);
  });

  it('asks the empty page without evidence, and keeps each full page as evidence', async () => {
    const store = new MemoryPageStore({ w1: null });
    const fake = exchange(7);
    const result = await runWindow({ store, client, window, pager: fake.pager });
    expect(fake.asked).toEqual([null, '5', '2', '1']);
    expect(store.pages.at(-1)).toEqual({ fromCursor: '1', nextCursor: '1', last: true, records: [] });
    expect(result).toMatchObject({ done: true, pages: 3, rows: 7 });
    expect(store.noted.map((n) => n.seen)).toEqual(['full', 'full']);
  });

  it('tells the store of a gap when a short page is followed by more (an exchange capping its pages)', async () => {
    const store = new MemoryPageStore({ w1: null });
    const fake = exchange(5, 2);
    const result = await runWindow({ store, client, window, pager: fake.pager });
    expect(result).toMatchObject({ done: true, rows: 5 });
    expect(store.noted).toEqual([
      { endpoint: 'spotRecord', limit: LIMIT, seen: 'gap' },
      { endpoint: 'spotRecord', limit: LIMIT, seen: 'gap' },
    ]);
  });
});
