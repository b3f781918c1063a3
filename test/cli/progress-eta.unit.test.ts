import { describe, expect, it } from 'vitest';

import { barLine } from '../../src/cli/progress/bar-line.ts';
import { etaSeconds, formatDuration, remainingRequests } from '../../src/cli/progress/eta.ts';
import { barSize, etaText } from '../../src/cli/progress/window-progress-view.ts';
import { STREAMS } from '../../src/streams/registry.ts';
import { streamProgress } from '../helpers/stream-progress.ts';

const progress = streamProgress;

describe('progress: the ETA from the remaining requests and the budget', () => {
  it('before any window finished: one request per open window, at the budget (14 windows at 1/s: 14 s)', () => {
    const p = progress({});
    expect(remainingRequests(p)).toBe(14);
    expect(etaSeconds(p, 1)).toBe(14);
    expect(etaText(p, 1)).toBe('ETA 14s, waiting for its 1/s budget');
  });

  it('after some windows: their average pages per window, less the pages the open ones have read', () => {
    // 4 done in 12 pages (3 each); 10 open of which 2 pages read: 10 * 3 - 2 = 28 requests.
    const p = progress({ done: 4, donePages: 12, openPages: 2 });
    expect(remainingRequests(p)).toBe(28);
    expect(etaText(p, 1)).toBe('ETA 28s, waiting for its 1/s budget');
    // A faster budget (a raised tier, EXCHANGE_RATE_FACTOR) shortens it in proportion.
    expect(etaSeconds(p, 4)).toBe(7);
  });

  it('never fewer requests than open windows, and none once every window is done or failed', () => {
    expect(remainingRequests(progress({ done: 4, donePages: 4, openPages: 50 }))).toBe(10);
    expect(remainingRequests(progress({ done: 13, failed: 1, donePages: 30 }))).toBe(0);
    expect(etaText(progress({ done: 14, donePages: 30 }), 1)).toBe('done');
  });

  it('durations read as seconds, minutes and seconds, hours and minutes: never NULL or INF', () => {
    expect(formatDuration(0)).toBe('0s');
    expect(formatDuration(41.2)).toBe('42s');
    expect(formatDuration(125)).toBe('2m 05s');
    expect(formatDuration(3 * 3600 + 4 * 60)).toBe('3h 04m');
    expect(formatDuration(Number.POSITIVE_INFINITY)).toBe('?');
    expect(formatDuration(Number.NaN)).toBe('?');
    const text = etaText(progress({ total: 3000, done: 1, donePages: 2 }), 1);
    expect(text).toMatch(/^ETA 1h 39m, /);
    expect(text).not.toMatch(/NULL|INF|NaN|Infinity/);
  });
});

describe('status: the time since the last sync, in words', () => {
  it('reads as minutes, hours and minutes, then days', async () => {
    const { ago } = await import('../../src/cli/commands/status-command.ts');
    expect(ago(4 * 60_000 + 59_000)).toBe('4 min');
    expect(ago(3 * 3_600_000 + 5 * 60_000)).toBe('3 h 05 min');
    expect(ago(3 * 86_400_000)).toBe('3 days');
  });
});

describe('a bar on an 80-column terminal', () => {
  const parts = (stream: string, status: string, details: string[] = []) => ({
    label: stream,
    fraction: 138 / 139,
    barSize: barSize(stream.length),
    value: 138,
    total: 139,
    status,
    details,
  });

  it('keeps the ETA and its reason whole beside any stream name, with 3-digit window counts', () => {
    for (const stream of STREAMS) {
      const eta = etaText(progress({ stream, total: 139, done: 138, openPages: 0 }), 1 / 6000);
      const line = barLine(parts(stream, eta, ['~6000 requests left', '123456 rows']), 80);
      expect(line).toMatch(/ETA \d+h \d\dm, waiting for its .+ budget/);
      expect(line.length, `${stream}: ${line}`).toBeLessThan(80);
    }
  });

  it('shows each detail whole or not at all, as many as the width takes (no `~13` or `1m 09s elap`)', () => {
    const details = ['~13 requests left', '5120 rows', '74 rows/s', '1m 09s elapsed', '2 retries'];
    for (const columns of [60, 80, 100, 120, 200]) {
      const line = barLine(parts('futures-ledger', 'ETA 13s, waiting for its 1/s budget', details), columns);
      expect(line.length).toBeLessThan(columns);
      const shown = line.split(' | ').slice(2);
      // A prefix of the details, each exactly as given.
      expect(shown).toEqual(details.slice(0, shown.length));
    }
    expect(
      barLine(parts('spot', 'done', details), 200)
        .split(' | ')
        .slice(2),
    ).toEqual(details);
  });

  it('draws the bar from the fraction done', () => {
    expect(barLine({ ...parts('spot', 'done'), fraction: 0.5, barSize: 10 }, 80)).toContain('|█████░░░░░|');
  });
});

describe('the ETA at the pace actually read', () => {
  it('is at the budget until the pace is slower, then at the pace (a loaded machine)', () => {
    const p = progress({ stream: 'spot', total: 20, done: 10, donePages: 10, openPages: 0 });
    expect(etaText(p, 1)).toBe('ETA 10s, waiting for its 1/s budget');
    expect(etaText(p, 1, 2)).toBe('ETA 10s, waiting for its 1/s budget');
    expect(etaText(p, 1, 0.5)).toBe('ETA 20s, waiting for its 1/s budget');
  });
});
