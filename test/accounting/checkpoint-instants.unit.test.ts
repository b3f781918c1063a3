import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';

import { checkpointInstants } from '../../src/accounting/gains/checkpoint-instants.ts';

const ms = (iso: string, zone = 'UTC') => DateTime.fromISO(iso, { zone }).toMillis();
const iso = (list: number[], zone = 'UTC') => list.map((m) => DateTime.fromMillis(m, { zone }).toISO());

describe('the instants a gains walk stores its lots at', () => {
  it('are the month starts it passes, after its start and up to its end, with the period’s own bounds', () => {
    const instants = checkpointInstants({
      afterMs: ms('2026-01-05T12:00'),
      untilMs: ms('2026-04-01T00:00'),
      tz: 'UTC',
      also: [ms('2026-03-20T00:00'), ms('2026-04-13T00:00'), ms('2026-01-01T00:00')],
    });
    expect(iso(instants)).toEqual([
      '2026-02-01T00:00:00.000Z',
      '2026-03-01T00:00:00.000Z',
      '2026-03-20T00:00:00.000Z',
      '2026-04-01T00:00:00.000Z',
    ]);
  });

  it('follow the period’s zone across daylight saving, and never include the instant the walk starts at', () => {
    const zone = 'Europe/Berlin';
    const instants = checkpointInstants({
      afterMs: ms('2026-03-01T00:00', zone),
      untilMs: ms('2026-05-01T00:00', zone),
      tz: zone,
      also: [ms('2026-03-01T00:00', zone)],
    });
    expect(iso(instants, zone)).toEqual(['2026-04-01T00:00:00.000+02:00', '2026-05-01T00:00:00.000+02:00']);
    expect(checkpointInstants({ afterMs: 10, untilMs: 10, tz: zone, also: [10] })).toEqual([]);
  });
});
