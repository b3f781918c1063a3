import { describe, expect, it } from 'vitest';

import { horizonWarnings, type StreamStatus } from '../../src/ingest/coverage/stream-status.ts';

const DAY = 86_400_000;
const NOW = 1_800_000_000_000;

function status(over: Partial<StreamStatus> & Pick<StreamStatus, 'stream'>): StreamStatus {
  return {
    scope: '',
    covered: [],
    gaps: [],
    failed: [],
    beyondHorizon: [],
    lastSuccess: null,
    lastFailure: null,
    windowsOpen: 0,
    ...over,
  };
}

describe('horizonWarnings: a stream whose windows never completed', () => {
  it('says it has never completed a window, not a day count from 1970', () => {
    const warnings = horizonWarnings(
      [
        status({ stream: 'positions', windowsOpen: 3 }),
        status({ stream: 'futures-ledger', covered: [{ start: NOW - 30 * DAY, end: NOW - DAY }] }),
      ],
      NOW,
    );
    expect(warnings).toEqual(['positions: has never completed a window; the exchange keeps only 90 days of it']);
    expect(warnings.join(' ')).not.toMatch(/not synced for/);
  });

  it('names the scope that never completed one when another scope of the stream did', () => {
    const warnings = horizonWarnings(
      [
        status({ stream: 'futures-ledger', scope: 'USDT-FUTURES', covered: [{ start: NOW - 9 * DAY, end: NOW }] }),
        status({ stream: 'futures-ledger', scope: 'COIN-FUTURES' }),
        status({ stream: 'positions', covered: [{ start: NOW - 9 * DAY, end: NOW }] }),
      ],
      NOW,
    );
    expect(warnings).toEqual([
      'futures-ledger (COIN-FUTURES): has never completed a window; the exchange keeps only 366 days of it',
    ]);
  });

  it('still counts the days since the last sync of a stream that completed windows', () => {
    const warnings = horizonWarnings(
      [
        status({ stream: 'positions', covered: [{ start: NOW - 80 * DAY, end: NOW - 70 * DAY }] }),
        status({ stream: 'futures-ledger', covered: [{ start: NOW - 9 * DAY, end: NOW }] }),
      ],
      NOW,
    );
    expect(warnings).toEqual(['positions: not synced for 70 days; the exchange forgets its records after 90 days']);
  });
});
