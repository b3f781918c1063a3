import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { SecretBox } from '../../src/crypto/secret-box.ts';
import { storePage } from '../../src/ingest/coverage/store-page.ts';
import { horizonWarnings, streamStatuses } from '../../src/ingest/coverage/stream-status.ts';
import { ensureWindows, failWindow } from '../../src/ingest/coverage/window-store.ts';
import { spotRecordTable } from '../../src/ingest/tables/spot-record-table.ts';
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

async function done(stream: 'spot' | 'positions', scope: string, start: number, end: number) {
  const [w] = await ensureWindows(pool, [{ accountId, stream, scope, start, end }]);
  await storePage(pool, {
    windowId: w!.id,
    accountId,
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

    const statuses = await streamStatuses(pool, accountId);
    const spot = statuses.find((s) => s.stream === 'spot')!;
    expect(spot.covered).toEqual([
      { start: 0, end: 10 * DAY },
      { start: 20 * DAY, end: 30 * DAY },
    ]);
    expect(spot.gaps).toEqual([{ start: 10 * DAY, end: 20 * DAY }]);
    expect(spot.lastFailure?.error).toMatch(/apikey\/password is incorrect/);
    expect(spot.windowsOpen).toBe(1);
    expect(spot.lastSuccess).toBeInstanceOf(Date);

    expect(horizonWarnings(statuses, now).join(' ')).toMatch(/not synced for 70 days/);
    expect(horizonWarnings(statuses, 150 * DAY)).toEqual([]);
    expect(horizonWarnings([], now).join(' ')).toMatch(/never been synced/);
  });
});
