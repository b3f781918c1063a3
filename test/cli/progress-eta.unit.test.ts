import { describe, expect, it } from 'vitest';

import { etaSeconds, formatDuration, remainingRequests } from '../../src/cli/progress/eta.ts';
import { BAR_FORMAT, barSize, etaText } from '../../src/cli/progress/window-progress-view.ts';
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
  it('keeps the ETA and its reason whole beside any stream name, with 3-digit window counts', () => {
    for (const stream of STREAMS) {
      const width = stream.length;
      const line = BAR_FORMAT.replace('{stream}', stream.padEnd(width))
        .replace('{bar}', '█'.repeat(barSize(width)))
        .replace('{value}/{total}', '138/139')
        .replace('{etaText}', etaText(progress({ stream, total: 139, done: 138, openPages: 0 }), 1 / 6000));
      const upToEta = line.slice(0, line.indexOf(' budget') + ' budget'.length);
      expect(upToEta).toMatch(/ETA \d+h \d\dm, waiting for its .+ budget$/);
      expect(upToEta.length, `${stream}: ${upToEta}`).toBeLessThanOrEqual(80);
    }
  });
});
