import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { SecretBox } from '../../src/crypto/secret-box.ts';
import { storePage } from '../../src/ingest/coverage/store-page.ts';
import { horizonWarnings, streamStatuses } from '../../src/ingest/coverage/stream-status.ts';
import { ensureWindows, failWindow } from '../../src/ingest/coverage/window-store.ts';
import { spotRecordTable } from '../../src/streams/spot/table.ts';
import { useTestDatabase } from '../helpers/test-database.ts';

const DAY = 86_400_000;
const db = useTestDatabase('status');
let pool: pg.Pool;
let accountId: string;

beforeAll(async () => {
  pool = new pg.Pool({ connectionString: db.url });
  const box = new SecretBox(Buffer.alloc(32, 3));
  accountId = (
    await db.prisma.account.create({
      data: { name: 'a', baseUrl: 'http://x', apiKey: 'k', secretEnc: box.seal('s'), passphraseEnc: box.seal('p') },
    })
  ).id;
});
afterAll(async () => {
  await pool.end();
});

async function newAccount(name: string): Promise<string> {
  const box = new SecretBox(Buffer.alloc(32, 3));
  const data = { name, baseUrl: 'http://x', apiKey: 'k', secretEnc: box.seal('s'), passphraseEnc: box.seal('p') };
  return (await db.prisma.account.create({ data })).id;
}

async function done(stream: 'spot' | 'positions', scope: string, start: number, end: number, account = accountId) {
  const [w] = await ensureWindows(pool, [{ accountId: account, stream, scope, start, end }]);
  await storePage(pool, {
    windowId: w!.id,
    accountId: account,
    spec: spotRecordTable,
    records: [],
    fromCursor: null,
    nextCursor: null,
    last: true,
  });
}

describe('status', () => {
  it('shows covered ranges, gaps, the last failure, and warns when positions are older than 60 days', async () => {
    const now = 200 * DAY;
    await done('spot', '', 0, 10 * DAY);
    await done('spot', '', 20 * DAY, 30 * DAY);
    const [failed] = await ensureWindows(pool, [
      { accountId, stream: 'spot', scope: '', start: 10 * DAY, end: 20 * DAY },
    ]);
    await failWindow(pool, failed!.id, 'ExchangeAuthError: apikey/password is incorrect', true);
    await done('positions', 'USDT-FUTURES', 100 * DAY, 130 * DAY);

    const statuses = await streamStatuses(pool, accountId, now);
    const spot = statuses.find((s) => s.stream === 'spot')!;
    expect(spot.covered).toEqual([
      { start: 0, end: 10 * DAY },
      { start: 20 * DAY, end: 30 * DAY },
    ]);
    expect(spot.gaps).toEqual([
      { start: 10 * DAY, end: 20 * DAY },
      { start: 30 * DAY, end: now },
    ]);
    expect(spot.failed).toEqual([{ start: 10 * DAY, end: 20 * DAY }]);
    expect(spot.lastFailure?.error).toMatch(/apikey\/password is incorrect/);
    expect(spot.windowsOpen).toBe(1);
    expect(spot.lastSuccess).toBeInstanceOf(Date);

    // Positions after 130 days were never read; what of that lies before the 90-day horizon
    // (200 - 90 = day 110 on) is beyond it: told apart, as no command can read it.
    const positions = statuses.find((s) => s.stream === 'positions')!;
    expect(positions.gaps).toEqual([{ start: 130 * DAY, end: now }]);
    expect(positions.beyondHorizon).toEqual([]);
    const later = await streamStatuses(pool, accountId, 250 * DAY);
    const forgotten = later.find((s) => s.stream === 'positions')!;
    expect(forgotten.beyondHorizon).toEqual([{ start: 130 * DAY, end: forgotten.beyondHorizon[0]!.end }]);
    expect(Math.abs(forgotten.beyondHorizon[0]!.end - 160 * DAY)).toBeLessThan(DAY);
    expect(later.find((s) => s.stream === 'spot')!.beyondHorizon).toEqual([]);

    expect(horizonWarnings(statuses, now).join(' ')).toMatch(/not synced for 70 days/);
    // Positions synced 10 days ago: no warning for them; the futures ledger (also behind a horizon)
    // was never synced on this account, and is warned about.
    expect(horizonWarnings(statuses, 150 * DAY)).toEqual([
      'futures-ledger: never synced; the exchange keeps only 366 days of it',
    ]);
    expect(horizonWarnings([], now).join(' ')).toMatch(/never synced/);
  });

  it('reports the gap before the first covered range (planned, never read) and after the last, up to now', async () => {
    const account = await newAccount('edges');
    // Planned from day 0, but only days 10..30 were read; now is day 40.
    await ensureWindows(pool, [{ accountId: account, stream: 'spot', scope: '', start: 0, end: 10 * DAY }]);
    await done('spot', '', 10 * DAY, 20 * DAY, account);
    await done('spot', '', 20 * DAY, 30 * DAY, account);
    const [spot] = await streamStatuses(pool, account, 40 * DAY);
    expect(spot!.covered).toEqual([{ start: 10 * DAY, end: 30 * DAY }]);
    expect(spot!.gaps).toEqual([
      { start: 0, end: 10 * DAY },
      { start: 30 * DAY, end: 40 * DAY },
    ]);
    expect(spot!.failed).toEqual([]);
  });

  it('shows a stream whose windows all failed as one gap from its planned start to now, and its failed range', async () => {
    const account = await newAccount('allfailed');
    const windows = await ensureWindows(pool, [
      { accountId: account, stream: 'spot', scope: '', start: 0, end: 10 * DAY },
      { accountId: account, stream: 'spot', scope: '', start: 10 * DAY, end: 20 * DAY },
    ]);
    for (const w of windows) await failWindow(pool, w.id, 'MalformedResponseError: data: must not be null', true);
    const [spot] = await streamStatuses(pool, account, 25 * DAY);
    expect(spot!.covered).toEqual([]);
    expect(spot!.gaps).toEqual([{ start: 0, end: 25 * DAY }]);
    expect(spot!.failed).toEqual([{ start: 0, end: 20 * DAY }]);
    expect(spot!.lastFailure?.error).toMatch(/must not be null/);
  });

  it('does not count as failed a failed window read again since', async () => {
    const account = await newAccount('healed');
    const [w] = await ensureWindows(pool, [{ accountId: account, stream: 'spot', scope: '', start: 0, end: 10 * DAY }]);
    await failWindow(pool, w!.id, 'ExchangeServerError: 503', true);
    // A later plan read the same days in other windows.
    await done('spot', '', 0, 5 * DAY, account);
    const [spot] = await streamStatuses(pool, account, 10 * DAY);
    expect(spot!.failed).toEqual([{ start: 5 * DAY, end: 10 * DAY }]);
    expect(spot!.gaps).toEqual([{ start: 5 * DAY, end: 10 * DAY }]);
  });
});
