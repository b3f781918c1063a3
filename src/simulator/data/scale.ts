/** How much data a simulator generates. */
export type ScaleOption = 'tiny' | 'demo' | 'bench' | { spotRecords: number };

export interface ScaleSpec {
  /** Spot finance records in total, bursts included. */
  spotRecords: number;
  /** Sizes of the bursts: groups of spot records sharing one ts. */
  bursts: number[];
  positions: number;
  transfers: number;
}

export const MAX_BURST = 900;

const NAMED: Record<'tiny' | 'demo' | 'bench', ScaleSpec> = {
  // Unit tests: a few hundred records per stream, starts in milliseconds.
  tiny: { spotRecords: 400, bursts: [40], positions: 300, transfers: 300 },
  // The demo: a full backfill with rate limits on (spot-record 1/s, 30-day windows) stays well under 2 minutes.
  demo: { spotRecords: 11_000, bursts: [620, 530], positions: 3_000, transfers: 3_000 },
  bench: {
    spotRecords: 1_000_000,
    bursts: [900, 800, 700, 650, 600, 560, 530, 510],
    positions: 20_000,
    transfers: 20_000,
  },
};

export function resolveScale(scale: ScaleOption = 'demo'): ScaleSpec {
  if (typeof scale === 'string') {
    const spec = NAMED[scale];
    if (!spec) throw new RangeError(`scale: must be tiny, demo, bench or { spotRecords } (got ${String(scale)})`);
    return { ...spec, bursts: [...spec.bursts] };
  }
  const n = scale.spotRecords;
  if (!Number.isSafeInteger(n) || n < 0 || n > 20_000_000) {
    throw new RangeError(`scale.spotRecords: must be an integer from 0 to 20000000 (got ${String(n)})`);
  }
  const bursts =
    n >= 5_000 ? [Math.min(MAX_BURST, 520 + Math.floor(n / 100_000) * 10)] : n >= 100 ? [Math.floor(n / 10)] : [];
  const others = Math.max(200, Math.min(20_000, Math.round(n * 0.3)));
  return { spotRecords: n, bursts, positions: n === 0 ? 0 : others, transfers: n === 0 ? 0 : others };
}
