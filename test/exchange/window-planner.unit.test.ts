import { describe, expect, it } from 'vitest';

import { ValidationError } from '../../src/errors/validation-error.ts';
import {
  exchangeBounds,
  gridCell,
  HORIZON_MARGIN_MS,
  planWindows,
  type TimeWindow,
  type WindowSpan,
} from '../../src/exchange/paging/window-planner.ts';
import { historyPositionEndpoint, positionHorizon } from '../../src/streams/positions/endpoint.ts';
import { spotRecordEndpoint } from '../../src/streams/spot/endpoint.ts';
import { allSubDepositWithdrawalEndpoint } from '../../src/streams/transfers/endpoint.ts';

const DAY = 86_400_000;
/** The spans the streams declare (src/streams/<name>/endpoint.ts), by endpoint name. */
const SPANS: Record<string, WindowSpan> = {
  historyPosition: historyPositionEndpoint,
  spotRecord: spotRecordEndpoint,
  allSubDepositWithdrawal: allSubDepositWithdrawalEndpoint,
};
const STREAMS = Object.keys(SPANS);

/** mulberry32: a small seeded generator, so every failing case can be replayed from its seed. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Ranges of every size: empty, 1 ms, around a span boundary, up to years; edges at odd milliseconds. */
function randomRange(random: () => number, maxSpanMs: number): [number, number] {
  const from = Date.UTC(2020, 0, 1) + Math.floor(random() * 6 * 365 * DAY);
  const kind = random();
  let length: number;
  if (kind < 0.1) length = 0;
  else if (kind < 0.2) length = 1 + Math.floor(random() * 3);
  else if (kind < 0.4) length = maxSpanMs * (1 + Math.floor(random() * 4)) + Math.floor(random() * 5) - 2;
  else length = Math.floor(random() * 800 * DAY);
  return [from, from + Math.max(0, length)];
}

function expectExactCover(windows: TimeWindow[], from: number, to: number, maxSpanMs: number): void {
  if (from >= to) {
    expect(windows).toEqual([]);
    return;
  }
  expect(windows[0]!.start).toBe(from);
  expect(windows.at(-1)!.end).toBe(to);
  windows.forEach((window, index) => {
    expect(window.end).toBeGreaterThan(window.start);
    expect(window.end - window.start).toBeLessThanOrEqual(maxSpanMs);
    // What the exchange receives: inclusive bounds, the range within its maximum.
    expect(Number(exchangeBounds(window).startTime)).toBe(window.start);
    expect(Number(exchangeBounds(window).endTime)).toBe(window.end - 1);
    expect(Number(exchangeBounds(window).endTime) - Number(exchangeBounds(window).startTime)).toBeLessThanOrEqual(
      maxSpanMs,
    );
    if (index > 0) {
      // Half-open windows meet exactly: no gap, no overlap, and the inclusive bounds follow on.
      expect(window.start).toBe(windows[index - 1]!.end);
      expect(Number(exchangeBounds(window).startTime)).toBe(Number(exchangeBounds(windows[index - 1]!).endTime) + 1);
    }
    // Every boundary between windows is on the grid (whole spans from the epoch), so only the
    // first and the last may be shorter than the maximum span.
    if (index > 0) expect(window.start % maxSpanMs).toBe(0);
    if (index > 0 && index < windows.length - 1) expect(window.end - window.start).toBe(maxSpanMs);
  });
}

describe('planWindows (seeded property tests)', () => {
  for (const stream of STREAMS) {
    it(`${stream}: windows cover [from, to) exactly, never overlap, never exceed ${SPANS[stream]!.maxSpanDays} days`, () => {
      const maxSpanMs = SPANS[stream]!.maxSpanDays * DAY;
      for (let seed = 1; seed <= 400; seed += 1) {
        const random = seeded(seed * 7919 + stream.length);
        const [from, to] = randomRange(random, maxSpanMs);
        // For positions, "now" sits right after `to` so the horizon does not cut: its clamp is tested below.
        const now = stream === 'historyPosition' ? from + 80 * DAY : to;
        const effectiveFrom = stream === 'historyPosition' ? Math.max(from, positionHorizon(now)) : from;
        const windows = planWindows(SPANS[stream]!, from, to, { now });
        try {
          expectExactCover(windows, Math.min(effectiveFrom, to), to, maxSpanMs);
        } catch (error) {
          throw new Error(`seed ${seed}: [${from}, ${to}) ${(error as Error).message}`, { cause: error });
        }
      }
    });
  }

  it('historyPosition: clamps from to the 3-month horizon (plus the margin), for any now', () => {
    for (let seed = 1; seed <= 300; seed += 1) {
      const random = seeded(seed);
      const now = Date.UTC(2026, 0, 1) + Math.floor(random() * 365 * DAY);
      const from = now - Math.floor(random() * 200 * DAY);
      const to = now - Math.floor(random() * 100 * DAY);
      const windows = planWindows(historyPositionEndpoint, from, Math.max(from, to), { now });
      const horizon = now - 90 * DAY + HORIZON_MARGIN_MS;
      expect(positionHorizon(now)).toBe(horizon);
      for (const window of windows) expect(window.start).toBeGreaterThanOrEqual(horizon);
      expectExactCover(windows, Math.min(Math.max(from, horizon), Math.max(from, to)), Math.max(from, to), 90 * DAY);
    }
  });

  it('cuts at UTC day lengths, daylight-saving or not', () => {
    // 2026-03-05 starts a 7-day grid cell (20,517 days after the epoch, a multiple of 7).
    const from = Date.UTC(2026, 2, 5); // spans the March DST change of every zone that has one
    const windows = planWindows(allSubDepositWithdrawalEndpoint, from, from + 21 * DAY);
    expect(windows.map((window) => window.end - window.start)).toEqual([7 * DAY, 7 * DAY, 7 * DAY]);
    expect(exchangeBounds(windows[1]!).startTime).toBe(String(Date.UTC(2026, 2, 12)));
    expect(exchangeBounds(windows[0]!).endTime).toBe(String(Date.UTC(2026, 2, 12) - 1));
  });

  it('cuts on the same grid whatever the range asked for, so two ranges share their windows', () => {
    for (const span of Object.values(SPANS)) {
      const to = Date.UTC(2026, 10, 1);
      const year = planWindows(span, to - 365 * DAY, to, { now: to });
      expect(year.length).toBeGreaterThan(1);
      const longer = planWindows(span, to - 365 * DAY - 17 * DAY - 5, to, { now: to });
      // Every window of the shorter range but its first is a window of the longer one, unchanged.
      const keys = new Set(longer.map((w) => `${w.start}-${w.end}`));
      for (const window of year.slice(1)) {
        expect(keys.has(`${window.start}-${window.end}`)).toBe(true);
        expect(gridCell(span, window.start).start).toBe(window.start);
      }
    }
  });

  it('refuses a reversed range or a time that is not Unix ms', () => {
    expect(() => planWindows(spotRecordEndpoint, 10, 9)).toThrow(ValidationError);
    expect(() => planWindows(spotRecordEndpoint, 1.5, 9)).toThrow(/from: must be Unix milliseconds/);
    expect(() => planWindows(spotRecordEndpoint, 0, Number.NaN)).toThrow(/to: must be Unix milliseconds/);
  });
});
