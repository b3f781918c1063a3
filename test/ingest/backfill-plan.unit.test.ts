import { describe, expect, it } from 'vitest';

import type { AccountSummary } from '../../src/accounts/account-service.ts';
import { ValidationError } from '../../src/errors/index.ts';
import { planWindows } from '../../src/exchange/index.ts';
import { planBackfill } from '../../src/ingest/backfill-plan.ts';
import { positionHorizon } from '../../src/streams/positions/endpoint.ts';
import { spotRecordEndpoint } from '../../src/streams/spot/endpoint.ts';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 5, 15, 12, 0, 0);

function account(isBrokerParent: boolean): AccountSummary {
  return {
    id: 'acc-1',
    name: 'main',
    uid: '1001',
    baseUrl: 'http://127.0.0.1:8080',
    apiKey: 'bg_x',
    isBrokerParent,
    isUnifiedAccount: false,
    disabledAt: null,
    createdAt: new Date(0),
  };
}

function thrown(run: () => unknown): ValidationError {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('planBackfill', () => {
  it('covers the range with windows of each stream, each scope, without gap or overlap', () => {
    const from = NOW - 60 * DAY;
    const { windows, notes } = planBackfill(account(true), 'spot', from, NOW, NOW);
    expect(notes).toEqual([]);
    expect(windows[0]!.start).toBe(from);
    expect(windows.at(-1)!.end).toBe(NOW);
    const sorted = [...windows].sort((a, b) => a.start - b.start);
    for (let i = 1; i < sorted.length; i++) expect(sorted[i]!.start).toBe(sorted[i - 1]!.end);
    expect(windows.every((w) => w.accountId === 'acc-1' && w.stream === 'spot' && w.scope === '')).toBe(true);
  });

  it('reads up to now when --to is in the future, and says so', () => {
    const { windows, notes } = planBackfill(account(true), 'spot', NOW - 10 * DAY, NOW + 5 * DAY, NOW);
    expect(Math.max(...windows.map((w) => w.end))).toBe(NOW);
    expect(notes).toEqual([expect.stringContaining('is in the future: reading up to now')]);
  });

  it('refuses --from not before --to, and --from in the future, naming the option', () => {
    expect(thrown(() => planBackfill(account(true), 'spot', NOW - DAY, NOW - DAY, NOW)).field).toBe('--from');
    expect(thrown(() => planBackfill(account(true), 'spot', NOW + DAY, NOW + 2 * DAY, NOW)).rule).toBe(
      'must not be in the future',
    );
  });

  it('refuses an explicit stream the account cannot read, and leaves it out of `all` with a note', () => {
    expect(thrown(() => planBackfill(account(false), 'transfers', NOW - DAY, NOW, NOW)).field).toBe('--stream');
    const { windows, notes } = planBackfill(account(false), 'all', NOW - DAY, NOW, NOW);
    expect(windows.some((w) => w.stream === 'transfers')).toBe(false);
    expect(notes).toContain('transfers left out: the account is not a broker parent');
  });

  it('refuses positions older than the horizon when asked for, and starts them at the horizon under `all`', () => {
    const from = NOW - 200 * DAY;
    expect(thrown(() => planBackfill(account(true), 'positions', from, NOW, NOW)).field).toBe('--from');
    const { windows, notes } = planBackfill(account(true), 'all', from, NOW, NOW);
    const positions = windows.filter((w) => w.stream === 'positions');
    expect(Math.min(...positions.map((w) => w.start))).toBe(positionHorizon(NOW));
    expect(new Set(positions.map((w) => w.scope)).size).toBeGreaterThan(1);
    expect(Math.min(...windows.filter((w) => w.stream === 'spot').map((w) => w.start))).toBe(from);
    expect(notes.some((n) => n.startsWith('positions start at the 3-month horizon'))).toBe(true);
  });

  it('leaves positions out of `all` when the whole range is older than the horizon', () => {
    const { windows, notes } = planBackfill(account(true), 'all', NOW - 300 * DAY, NOW - 200 * DAY, NOW);
    expect(windows.some((w) => w.stream === 'positions')).toBe(false);
    expect(notes).toContain('positions left out: the range is older than the 3-month horizon');
  });

  it('plans only what the coverage leaves out, old windows cut from another --from counting as coverage', () => {
    const yearFrom = NOW - 365 * DAY - 777; // an old --from: its windows were cut from here
    const covered = [{ start: yearFrom, end: NOW }];
    const from = yearFrom - 182 * DAY;
    const { windows, alreadyCovered } = planBackfill(account(true), 'spot', from, NOW, NOW, (stream) =>
      stream === 'spot' ? covered : [],
    );
    expect(windows[0]!.start).toBe(from);
    expect(windows.at(-1)!.end).toBe(yearFrom);
    expect(alreadyCovered).toBeGreaterThanOrEqual(12);
    // A hole in the middle of the coverage is planned, and only the hole.
    const holed = [
      { start: from, end: NOW - 100 * DAY },
      { start: NOW - 90 * DAY, end: NOW },
    ];
    const plan = planBackfill(account(true), 'spot', from, NOW, NOW, () => holed);
    expect(plan.windows.map((w) => [w.start, w.end])).toEqual(
      planWindows(spotRecordEndpoint, NOW - 100 * DAY, NOW - 90 * DAY).map((w) => [w.start, w.end]),
    );
  });

  it('cuts windows on the grid whatever --from says: two backfills share every window but the first', () => {
    const a = planBackfill(account(true), 'spot', NOW - 200 * DAY, NOW, NOW).windows;
    const b = planBackfill(account(true), 'spot', NOW - 213 * DAY - 1, NOW, NOW).windows;
    const keys = new Set(b.map((w) => `${w.start}-${w.end}`));
    expect(a.slice(1).every((w) => keys.has(`${w.start}-${w.end}`))).toBe(true);
  });
});
