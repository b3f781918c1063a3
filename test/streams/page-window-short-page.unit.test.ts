import { describe, expect, it } from 'vitest';

import { endsShortUnlessCanary, fillsPages } from '../../src/streams/kit/page-fill.ts';
import { type Fetched, type Page, pageWindow } from '../../src/streams/kit/page-window.ts';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 28);
const PERIOD = 30 * DAY;
const LIMIT = 5;
/** The fake's empty page is its honest end: no older record is ever found. */
const NO_OLDER = { pageSize: LIMIT, timeOf: () => 0, anyBefore: async () => false };

/**
 * A fake endpoint over ids `total` down to 1, newest (largest) first, answering at most `serves`
 * items a page (an exchange capping below the limit when `serves` < LIMIT); it records each cursor asked.
 */
function endpoint(total: number, serves = LIMIT) {
  const asked: (string | null)[] = [];
  const fetchPage = async (cursor: string | null): Promise<Fetched<number>> => {
    asked.push(cursor);
    const below = cursor === null ? total + 1 : Number(cursor);
    const items: number[] = [];
    for (let id = below - 1; id >= 1 && items.length < serves; id--) items.push(id);
    return { items, next: items.length === 0 ? null : String(items.at(-1)) };
  };
  return { asked, fetchPage };
}

async function read(total: number, endsShort: boolean, serves = LIMIT) {
  const fake = endpoint(total, serves);
  const pages: Page<number>[] = [];
  for await (const page of pageWindow('fake', fake.fetchPage, null, 'decreasing-id', 100, NO_OLDER, {
    limit: LIMIT,
    endsShort,
  })) {
    pages.push(page);
  }
  return { asked: fake.asked, pages, ids: pages.flatMap((p) => p.items) };
}

describe('pageWindow: a page shorter than the limit', () => {
  it('ends the window when the evidence is fresh: no empty page is asked', async () => {
    const endsShort = fillsPages({ lastFullPageAt: NOW - DAY, lastGapAt: null }, NOW, PERIOD);
    expect(endsShort).toBe(true);
    const { asked, pages, ids } = await read(12, endsShort);
    // 5 + 5 + 2: the short third page is the last request.
    expect(asked).toEqual([null, '8', '3']);
    expect(pages.map((p) => p.items.length)).toEqual([5, 5, 2]);
    expect(ids).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
    expect(pages.every((p) => p.asked === LIMIT && p.afterShort === undefined)).toBe(true);
  });

  it('asks the next page without evidence, and ends only on the empty one', async () => {
    const endsShort = fillsPages(undefined, NOW, PERIOD);
    expect(endsShort).toBe(false);
    const { asked, ids } = await read(12, endsShort);
    expect(asked).toEqual([null, '8', '3', '1']);
    expect(ids).toHaveLength(12);
  });

  it('does not count evidence older than the period: the empty page is asked', async () => {
    const stale = fillsPages({ lastFullPageAt: NOW - PERIOD - 1, lastGapAt: null }, NOW, PERIOD);
    expect(stale).toBe(false);
    expect(fillsPages({ lastFullPageAt: NOW - PERIOD, lastGapAt: null }, NOW, PERIOD)).toBe(true);
    const { asked } = await read(12, stale);
    expect(asked).toEqual([null, '8', '3', '1']);
  });

  it('does not count a full page while a gap (a short page with more after it) is within the period', () => {
    expect(fillsPages({ lastFullPageAt: NOW - DAY, lastGapAt: NOW - 2 * DAY }, NOW, PERIOD)).toBe(false);
    expect(fillsPages({ lastFullPageAt: NOW - DAY, lastGapAt: NOW - DAY / 2 }, NOW, PERIOD)).toBe(false);
    // A gap older than the period, followed by a recent full page: the evidence stands again.
    expect(fillsPages({ lastFullPageAt: NOW - DAY, lastGapAt: NOW - PERIOD - 1 }, NOW, PERIOD)).toBe(true);
    // A period of 0 (PAGE_FILL_EVIDENCE_DAYS=0) turns the rule off.
    expect(fillsPages({ lastFullPageAt: NOW, lastGapAt: null }, NOW, 0)).toBe(false);
  });

  it('loses the rest of the window when the exchange caps its pages after the evidence: what the checks must catch', async () => {
    const { asked, ids } = await read(12, true, 3);
    expect(asked).toEqual([null]);
    expect(ids).toEqual([12, 11, 10]);
  });

  it('without evidence, pages a capping exchange whole and marks the page after a short one (a gap)', async () => {
    const { asked, pages, ids } = await read(12, false, 3);
    expect(asked).toEqual([null, '10', '7', '4', '1']);
    expect(ids).toHaveLength(12);
    expect(pages.map((p) => p.afterShort ?? false)).toEqual([false, true, true, true]);
  });

  it('takes a full last page as no end: the empty page after it is still asked', async () => {
    const { asked, ids } = await read(10, true);
    expect(asked).toEqual([null, '6', '1']);
    expect(ids).toHaveLength(10);
  });
});

describe('the canary: about one window in PAGE_FILL_CANARY_EVERY is read to its empty page anyway', () => {
  it('draws one in `every` of the windows the evidence would let end short, none without evidence', () => {
    // A fixed sequence of draws in [0, 1): with every = 10, exactly the draws below 0.1 are canaries.
    const draws = Array.from({ length: 1000 }, (_, i) => ((i * 7919) % 1000) / 1000);
    const ends = draws.map((d) => endsShortUnlessCanary(true, 10, () => d));
    expect(ends.filter((e) => !e)).toHaveLength(100);
    expect(endsShortUnlessCanary(true, 10, () => 0.0999)).toBe(false);
    expect(endsShortUnlessCanary(true, 10, () => 0.1)).toBe(true);
    // 0 turns the canary off; without evidence no window ends short, canary or not.
    expect(draws.every((d) => endsShortUnlessCanary(true, 0, () => d))).toBe(true);
    expect(draws.some((d) => endsShortUnlessCanary(false, 10, () => d))).toBe(false);
    // every = 1: each window is read to its empty page, as without the rule.
    expect(draws.some((d) => endsShortUnlessCanary(true, 1, () => d))).toBe(false);
  });

  it('a canary window on a capping exchange is read whole and finds the gap that withdraws the evidence', async () => {
    const canary = !endsShortUnlessCanary(true, 10, () => 0.05);
    expect(canary).toBe(true);
    const { asked, pages, ids } = await read(12, !canary, 3);
    expect(asked).toEqual([null, '10', '7', '4', '1']);
    expect(ids).toHaveLength(12);
    expect(pages[1]!.afterShort).toBe(true);
  });
});
