import { describe, expect, it } from 'vitest';

import { TransientError } from '../../src/errors/index.ts';
import { ExchangeServerError, MalformedResponseError } from '../../src/exchange/errors/exchange-error.ts';
import { runWindow } from '../../src/ingest/run-window.ts';
import type { Page } from '../../src/streams/kit/page-window.ts';
import { MemoryPageStore } from './helpers/memory-page-store.ts';
import { offlineClient, spotWindow } from './helpers/offline-window.ts';

const client = offlineClient;

/** Pages with cursors "c<n>" (ids decreasing as a real pager's), from `from` on, `count` of them, then the end. */
function fakePager(count: number, options: { failAt?: number; error?: Error } = {}) {
  const asked: (string | null)[] = [];
  const pager = async function* (resumeFrom: string | null): AsyncGenerator<Page<unknown>> {
    asked.push(resumeFrom);
    let cursor = resumeFrom;
    let n = resumeFrom === null ? 0 : Number(resumeFrom.slice(1));
    while (n < count) {
      if (options.failAt === n) throw options.error;
      n += 1;
      const next = `c${n}`;
      yield { items: [{ id: next, coin: 'BTC' }], cursor: next, requestedWith: cursor };
      cursor = next;
    }
  };
  return { asked, pager };
}

describe('runWindow (in-memory page store, fake pager)', () => {
  it('resumes from the stored cursor and stores each page with the cursor it was requested with', async () => {
    const store = new MemoryPageStore({ w1: 'c2' });
    const { asked, pager } = fakePager(5);
    const result = await runWindow({ store, client, window: spotWindow('c2'), pager });
    expect(asked).toEqual(['c2']);
    expect(store.pages.map((p) => [p.fromCursor, p.nextCursor, p.last])).toEqual([
      ['c2', 'c3', false],
      ['c3', 'c4', false],
      ['c4', 'c5', false],
      ['c5', 'c5', true],
    ]);
    expect(result).toMatchObject({ done: true, pages: 3, rows: 3, inserted: 3 });
  });

  it('marks the window done on the empty page that ends paging, with no records', async () => {
    const store = new MemoryPageStore({ w1: null });
    const { pager } = fakePager(0);
    const result = await runWindow({ store, client, window: spotWindow(null), pager });
    expect(store.pages).toEqual([{ fromCursor: null, nextCursor: null, last: true, records: [] }]);
    expect(result).toMatchObject({ done: true, pages: 0 });
  });

  it('stops after the page in hand when asked to, leaving the window at its last stored cursor', async () => {
    const store = new MemoryPageStore({ w1: null });
    const { pager } = fakePager(5);
    const result = await runWindow({ store, client, window: spotWindow(null), pager, shouldStop: () => true });
    expect(result).toMatchObject({ done: false, pages: 1 });
    expect(store.cursor.get('w1')).toBe('c1');
    expect(store.done.has('w1')).toBe(false);
  });

  it.each([
    [
      'a transient exchange failure',
      new ExchangeServerError({ endpoint: 'spotRecord', code: 'HTTP_500', msg: 'boom', httpStatus: 500 }),
      ExchangeServerError,
    ],
    [
      'a malformed answer',
      new MalformedResponseError('spotRecord', 'cursor', 'the page cursor did not advance'),
      MalformedResponseError,
    ],
  ])('propagates %s by its class, the pages before it stored and the window not done', async (_, error, cls) => {
    const store = new MemoryPageStore({ w1: null });
    const { pager } = fakePager(5, { failAt: 2, error });
    await expect(runWindow({ store, client, window: spotWindow(null), pager })).rejects.toBeInstanceOf(cls);
    expect(store.cursor.get('w1')).toBe('c2');
    expect(store.done.has('w1')).toBe(false);
  });

  it('propagates a store failure by its class and asks for no page after it', async () => {
    const store = new MemoryPageStore({ w1: null });
    store.failNext = new TransientError('database gone', { code: 'DB_DOWN' });
    const { pager } = fakePager(5);
    await expect(runWindow({ store, client, window: spotWindow(null), pager })).rejects.toBeInstanceOf(TransientError);
    expect(store.pages).toEqual([]);
  });
});
