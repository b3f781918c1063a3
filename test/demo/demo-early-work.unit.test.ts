import { describe, expect, it } from 'vitest';

import { EarlyWork } from '../../src/demo/demo-early-work.ts';
import type { StreamProgress } from '../../src/ingest/coverage/window-progress.ts';
import type { Stream } from '../../src/streams/registry.ts';
import { streamProgress } from '../helpers/stream-progress.ts';

function progress(counts: Partial<Record<Stream, [done: number, total: number]>>): StreamProgress[] {
  return Object.entries(counts).map(([stream, [done, total]]) =>
    streamProgress({ stream: stream as Stream, done, total }),
  );
}

function harness(options: { failPrices?: boolean } = {}) {
  const analyzed: string[] = [];
  const starts: { complete: Stream[]; pricesLoaded: boolean }[] = [];
  let pricesLoads = 0;
  const pool = {
    query: async (sql: string) => {
      analyzed.push(sql);
      return { rows: [] };
    },
  };
  const exports = {
    startReady: (complete: ReadonlySet<Stream>, pricesLoaded: boolean) => {
      starts.push({ complete: [...complete].sort(), pricesLoaded });
      return complete.size;
    },
  };
  const work = new EarlyWork(pool, exports, async () => {
    pricesLoads++;
    if (options.failPrices) throw new Error('prices file unreadable');
    return 'prices: loaded';
  });
  return { work, analyzed, starts, prices: () => pricesLoads };
}

describe('EarlyWork: what the demo does while the backfill reads', () => {
  it('starts the files of each history once its windows are all read, the prices once spot is', async () => {
    const { work, analyzed, starts, prices } = harness();
    // Progress is read every half second: each read's work is done before the next here.
    const read = async (counts: Parameters<typeof progress>[0]) => {
      work.progressed(progress(counts));
      await new Promise((resolve) => setTimeout(resolve, 5));
    };
    await read({ transfers: [3, 58], spot: [1, 14], 'futures-ledger': [0, 39] });
    await read({ transfers: [58, 58], spot: [10, 14], 'futures-ledger': [2, 39] });
    await read({ transfers: [58, 58], spot: [14, 14], 'futures-ledger': [9, 39] });
    // The same progress again starts nothing new.
    await read({ transfers: [58, 58], spot: [14, 14], 'futures-ledger': [9, 39] });
    await read({ transfers: [58, 58], spot: [14, 14], 'futures-ledger': [39, 39] });
    const done = await work.finished();

    expect(starts).toEqual([
      { complete: ['transfers'], pricesLoaded: false },
      { complete: ['spot', 'transfers'], pricesLoaded: true },
      { complete: ['futures-ledger', 'spot', 'transfers'], pricesLoaded: true },
    ]);
    expect(prices()).toBe(1);
    expect(analyzed).toEqual(['ANALYZE broker_transfer', 'ANALYZE spot_record', 'ANALYZE futures_ledger_record']);
    // Files started at the last progress were not started "while the backfill was still reading".
    expect(done).toEqual({ lines: ['prices: loaded'], filesStarted: 1 + 2 });
  });

  it('loads the prices at the end when no spot window was read (a re-run: all were done before)', async () => {
    const { work, starts, prices } = harness();
    expect(await work.finished()).toEqual({ lines: ['prices: loaded'], filesStarted: 0 });
    expect(starts).toEqual([]);
    expect(prices()).toBe(1);
  });

  it('reports a failure of its work when the backfill is done, not before', async () => {
    const { work } = harness({ failPrices: true });
    work.progressed(progress({ spot: [14, 14], 'futures-ledger': [3, 39] }));
    await expect(work.finished()).rejects.toThrow('prices file unreadable');
  });
});
