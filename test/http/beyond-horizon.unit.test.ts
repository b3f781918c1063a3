import { describe, expect, it } from 'vitest';

import { markBeyondHorizon } from '../../src/http/coverage.ts';
import { gapAdvice } from '../../src/http/pages.ts';
import { positionHorizon } from '../../src/streams/positions/endpoint.ts';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 26);

describe('gaps beyond the exchange horizon', () => {
  it('splits a positions gap at the horizon and leaves a spot gap recoverable however old', () => {
    const horizon = positionHorizon(NOW);
    const gaps = markBeyondHorizon(
      [
        { stream: 'positions', scope: 'USDT-FUTURES', start: NOW - 200 * DAY, end: NOW - 10 * DAY },
        { stream: 'spot', scope: '', start: NOW - 900 * DAY, end: NOW - 800 * DAY },
      ],
      NOW,
    );
    expect(gaps).toEqual([
      { stream: 'positions', scope: 'USDT-FUTURES', start: NOW - 200 * DAY, end: horizon, beyondHorizon: true },
      { stream: 'positions', scope: 'USDT-FUTURES', start: horizon, end: NOW - 10 * DAY, beyondHorizon: false },
      { stream: 'spot', scope: '', start: NOW - 900 * DAY, end: NOW - 800 * DAY, beyondHorizon: false },
    ]);
  });

  it('advises a backfill only for what can still be read', () => {
    const gap = { stream: 'positions' as const, scope: 'USDT-FUTURES', start: 0, end: DAY };
    const text = (beyond: boolean[]) =>
      String(gapAdvice(beyond.map((b) => ({ ...gap, beyondHorizon: b })))).replace(/\s+/g, ' ');
    expect(text([false])).toContain('Run a backfill or wait for the nightly sync');
    expect(text([true])).not.toMatch(/backfill/);
    expect(text([true])).toContain("These records are beyond the exchange's horizon and cannot be read any more");
    expect(text([true, false])).toContain('Some of these records are beyond');
    expect(text([true, false])).toContain('A backfill or the nightly sync can still fill the other gaps');
  });
});
