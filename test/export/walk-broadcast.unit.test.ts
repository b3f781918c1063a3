import { describe, expect, it } from 'vitest';

import { sharedWalk, sharingGainsWalks } from '../../src/export/reports/shared-gains-walks.ts';
import { SharedWalkEndedError, WalkBroadcast } from '../../src/export/reports/walk-broadcast.ts';

/** A walk of `count` numbered events that counts how often it was started and read. */
function countingWalk(count: number, failAt?: number) {
  const stats = { started: 0, pulled: 0, returned: false };
  async function* walk(): AsyncGenerator<number> {
    stats.started++;
    try {
      for (let i = 0; i < count; i++) {
        if (i === failAt) throw new Error(`walk failed at ${i}`);
        stats.pulled++;
        await Promise.resolve();
        yield i;
      }
    } finally {
      stats.returned = true;
    }
  }
  return { walk, stats };
}

async function readAll<T>(reader: AsyncIterable<T>, onEach?: (event: T) => Promise<void>): Promise<T[]> {
  const seen: T[] = [];
  for await (const event of reader) {
    seen.push(event);
    await onEach?.(event);
  }
  return seen;
}

const numbers = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('WalkBroadcast', () => {
  it('hands every event of one walk, in order, to each reader: the walk runs once', async () => {
    const { walk, stats } = countingWalk(10_000);
    const broadcast = new WalkBroadcast(walk(), () => undefined);
    const readers = [broadcast.join()!, broadcast.join()!, broadcast.join()!];
    const results = await Promise.all(readers.map((r) => readAll(r)));
    for (const seen of results) expect(seen).toEqual(numbers(10_000));
    expect(stats).toEqual({ started: 1, pulled: 10_000, returned: true });
  });

  it('holds a fast reader back: it never runs more than maxAhead events before the slowest', async () => {
    const { walk, stats } = countingWalk(5_000);
    const limits = { joinWindow: 100, maxAhead: 400 };
    const broadcast = new WalkBroadcast(walk(), () => undefined, limits);
    let slowAt = 0;
    let widest = 0;
    const fast = readAll(broadcast.join()!, async () => {
      widest = Math.max(widest, stats.pulled - slowAt);
    });
    const slow = readAll(broadcast.join()!, async (event) => {
      slowAt = event + 1;
      await new Promise((r) => setImmediate(r));
    });
    const [a, b] = await Promise.all([fast, slow]);
    expect(a).toEqual(numbers(5_000));
    expect(b).toEqual(numbers(5_000));
    // The buffer may hold maxAhead events plus one pull's batch beyond the slowest reader.
    expect(widest).toBeLessThanOrEqual(limits.maxAhead + 256);
    expect(widest).toBeGreaterThan(limits.joinWindow);
  });

  it('refuses a reader once the first events are let go, and tells the registry when idle', async () => {
    const { walk } = countingWalk(1_000);
    let idle = 0;
    const broadcast = new WalkBroadcast(walk(), () => idle++, { joinWindow: 10, maxAhead: 20 });
    const first = broadcast.join()!;
    const seen = await readAll(first);
    expect(seen).toEqual(numbers(1_000));
    expect(broadcast.join()).toBeUndefined();
    expect(idle).toBe(1);
  });

  it("gives every reader the walk's error", async () => {
    const { walk } = countingWalk(1_000, 700);
    const broadcast = new WalkBroadcast(walk(), () => undefined);
    const results = await Promise.allSettled([readAll(broadcast.join()!), readAll(broadcast.join()!)]);
    for (const result of results) {
      expect(result.status).toBe('rejected');
      expect(String((result as PromiseRejectedResult).reason)).toContain('walk failed at 700');
    }
  });

  it('ends the walk for everyone when the reader whose connection runs it stops early', async () => {
    const { walk, stats } = countingWalk(10_000);
    const broadcast = new WalkBroadcast(walk(), () => undefined);
    const owner = broadcast.join()!;
    const other = readAll(broadcast.join()!);
    for await (const event of owner) if (event === 50) break;
    await expect(other).rejects.toBeInstanceOf(SharedWalkEndedError);
    expect(stats.returned).toBe(true);
    expect(stats.pulled).toBeLessThan(10_000);
  });
});

describe('sharedWalk', () => {
  it('shares a walk between callers of one key inside sharingGainsWalks, and only there', async () => {
    const { walk, stats } = countingWalk(3_000);
    const [a, b, c] = await sharingGainsWalks(async () =>
      Promise.all([readAll(sharedWalk('k', walk)), readAll(sharedWalk('k', walk)), readAll(sharedWalk('other', walk))]),
    );
    expect(a).toEqual(numbers(3_000));
    expect(b).toEqual(numbers(3_000));
    expect(c).toEqual(numbers(3_000));
    expect(stats.started).toBe(2);

    await Promise.all([readAll(sharedWalk('k', walk)), readAll(sharedWalk('k', walk))]);
    expect(stats.started).toBe(4);
  });

  it('starts a new walk for a caller arriving after the last one ended', async () => {
    const { walk, stats } = countingWalk(100);
    await sharingGainsWalks(async () => {
      expect(await readAll(sharedWalk('k', walk))).toEqual(numbers(100));
      expect(await readAll(sharedWalk('k', walk))).toEqual(numbers(100));
    });
    expect(stats.started).toBe(2);
  });
});

describe('a walk shared by a batch that replays finished walks (the tax-year pack), joined after it ended', () => {
  it('is read again from memory, not walked a second time, while every event is still held', async () => {
    const { walk, stats } = countingWalk(50);
    const [first, late] = await sharingGainsWalks(
      async () => {
        const first = await readAll(sharedWalk('k', () => walk()));
        // The second export of the batch reaches the walk after the first read it to its end.
        const late = await readAll(sharedWalk('k', () => walk()));
        return [first, late];
      },
      { replayFinished: true },
    );
    expect(first).toEqual(numbers(50));
    expect(late).toEqual(numbers(50));
    expect(stats.started).toBe(1);
  });

  it('is walked again once its events were let go (longer than the join window)', async () => {
    const { walk, stats } = countingWalk(30_000);
    await sharingGainsWalks(
      async () => {
        await readAll(sharedWalk('k', () => walk()));
        expect(await readAll(sharedWalk('k', () => walk()))).toHaveLength(30_000);
      },
      { replayFinished: true },
    );
    expect(stats.started).toBe(2);
  });
});
