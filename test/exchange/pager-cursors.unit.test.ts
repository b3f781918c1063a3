import { afterEach, describe, expect, it } from 'vitest';

import { MalformedResponseError } from '../../src/exchange/errors/exchange-error.ts';
import { MemoryRateBudget } from '../../src/exchange/rate-budget/memory-rate-budget.ts';
import { pageCap } from '../../src/streams/kit/page-window.ts';
import { pageSpotRecords } from '../../src/streams/spot/pager.ts';
import { type FakeExchange, ok, startFakeExchange } from './helpers/fake-exchange.ts';
import { makeClient } from './helpers/make-client.ts';

// The budget in memory, one per client: no Redis; these tests are about the cursors, not the budget.

let fake: FakeExchange | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

function record(id: bigint) {
  return {
    id: String(id),
    coin: 'BTC',
    spotTaxType: 'Buy',
    amount: '1',
    fee: '0',
    balance: '1',
    bizOrderId: 'b',
    ts: '1',
  };
}

/** The idLessThan of a spot-record request, as a number (none: the first page). */
function idLessThan(url: string): bigint | undefined {
  const value = new URL(url, 'http://x').searchParams.get('idLessThan');
  return value === null ? undefined : BigInt(value);
}

async function drain(
  fakeUrl: string,
  window: { start: number; end: number },
): Promise<{ pages: number; error: unknown }> {
  const client = makeClient(fakeUrl, new MemoryRateBudget(), 'pager-cursors', {
    rateBudget: { perSecond: { spotRecord: 10_000 } },
  });
  let pages = 0;
  try {
    for await (const _page of pageSpotRecords(client, window)) {
      pages += 1;
      // Without a cap this never ends: stop the test, not the machine.
      if (pages > 1_000) return { pages, error: undefined };
    }
    return { pages, error: undefined };
  } catch (error) {
    return { pages, error };
  } finally {
    await client.close();
  }
}

describe('pageWindow cursors', () => {
  it('fail an id-paged window whose next cursor is not a smaller id, naming both', async () => {
    // Page 1 ends at id 100, page 2 (asked idLessThan=100) at 150: the exchange went backwards.
    fake = await startFakeExchange((request, response) => {
      const cursor = idLessThan(request.url);
      response.end(ok(cursor === undefined ? [record(101n), record(100n)] : [record(150n)]));
    });
    const { pages, error } = await drain(fake.url, { start: 0, end: 60_000 });
    expect(pages).toBe(1);
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect((error as Error).message).toBe(
      'spotRecord: MALFORMED_RESPONSE cursor: the page asked with cursor 100 answered cursor 150: ids must decrease from page to page',
    );
  });

  it('stop a window that never answers an empty page at its page cap', async () => {
    // Every page one record older than the cursor, forever.
    fake = await startFakeExchange((request, response) => {
      const cursor = idLessThan(request.url) ?? 1_000_000n;
      response.end(ok([record(cursor - 1n)]));
    });
    const window = { start: 0, end: 60_000 };
    const cap = pageCap(window, 500);
    expect(cap).toBe(100);
    const { pages, error } = await drain(fake.url, window);
    expect(pages).toBe(cap);
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect((error as Error).message).toBe(
      `spotRecord: MALFORMED_RESPONSE cursor: the window did not end within ${cap} pages (last cursor ${1_000_000 - cap})`,
    );
  });
});
