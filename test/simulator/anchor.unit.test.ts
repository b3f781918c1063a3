import { describe, expect, it } from 'vitest';

import { startSimulator } from '../../src/simulator/index.ts';

describe('simulator anchor', () => {
  it('serves the same history from the same seed and anchor, whenever it starts', async () => {
    const anchor = Math.floor(Date.now() / 86_400_000) * 86_400_000;
    const a = await startSimulator({ scale: 'tiny', anchor, now: anchor + 3_600_000 });
    const b = await startSimulator({ scale: 'tiny', anchor, now: anchor + 7_200_000 });
    const c = await startSimulator({ scale: 'tiny', now: anchor + 3_600_000 });
    try {
      const idsA = a.truth('spot').map((r) => r.id);
      const idsB = b
        .truth('spot')
        .filter((r) => Number(r.ts) <= anchor + 3_600_000)
        .map((r) => r.id);
      expect(idsA.length).toBeGreaterThan(100);
      expect(idsB).toEqual(idsA);
      // Without an anchor the history is laid out from the clock's start: different records.
      expect(c.truth('spot').map((r) => r.id)).not.toEqual(idsA);
    } finally {
      await Promise.all([a.close(), b.close(), c.close()]);
    }
  });
});
