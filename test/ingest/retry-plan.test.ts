import { randomBytes } from 'node:crypto';

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { AccountService } from '../../src/accounts/account-service.ts';
import { ensureWindows } from '../../src/ingest/coverage/window-store.ts';
import { planRetries } from '../../src/ingest/retry-plan.ts';
import { positionHorizon } from '../../src/streams/positions/endpoint.ts';
import { useTestDatabase } from '../helpers/test-database.ts';

const DAY = 86_400_000;
const db = useTestDatabase('retryplan');
let pool: pg.Pool;
let accountId: string;

beforeAll(async () => {
  pool = new pg.Pool({ connectionString: db.url });
  const service = new AccountService(db.prisma, randomBytes(32));
  const account = await service.add({
    name: 'retry',
    baseUrl: 'http://127.0.0.1:8080',
    apiKey: 'bg_0123456789abcdef',
    secretKey: 'secret-value-0042',
    passphrase: 'Passphrase123',
    uid: '4200001',
    isBrokerParent: true,
  });
  accountId = account.id;
});
afterAll(async () => {
  await pool?.end();
});

describe('planRetries', () => {
  it('retries unfinished windows oldest first, and leaves positions windows behind the horizon failed', async () => {
    const now = Date.UTC(2026, 10, 22, 12);
    const horizon = positionHorizon(now);
    const key = (stream: 'positions' | 'spot', start: number, end: number) => ({
      accountId,
      stream,
      scope: stream === 'positions' ? 'USDT-FUTURES' : '',
      start,
      end,
    });
    const [spotDone, spotFailed, spotPending, lost, straddling, recent] = await ensureWindows(pool, [
      key('spot', now - 40 * DAY, now - 39 * DAY),
      key('spot', now - 200 * DAY, now - 199 * DAY),
      key('spot', now - 10 * DAY, now - 9 * DAY),
      key('positions', horizon - 7 * DAY, horizon - DAY),
      key('positions', horizon - DAY, horizon + DAY),
      key('positions', now - 3 * DAY, now - 2 * DAY),
    ]);
    await pool.query(`UPDATE sync_window SET status = 'done' WHERE id = $1`, [spotDone!.id]);
    await pool.query(`UPDATE sync_window SET status = 'failed' WHERE id = ANY($1::uuid[])`, [
      [spotFailed!.id, lost!.id, straddling!.id],
    ]);
    await pool.query(`UPDATE sync_window SET status = 'running' WHERE id = $1`, [recent!.id]);

    const plan = await planRetries(pool, accountId, ['positions', 'spot'], now);
    expect(plan.windows.map((w) => w.id)).toEqual([spotFailed!.id, straddling!.id, spotPending!.id, recent!.id]);
    expect(plan.notes).toHaveLength(2);
    expect(plan.notes[0]).toMatch(/^positions USDT-FUTURES .* never finished and is now behind the exchange's horizon/);
    expect(plan.notes[1]).toMatch(/^positions USDT-FUTURES .*: read again, but what is before .* is lost$/);
    // Only the streams asked for.
    expect((await planRetries(pool, accountId, ['spot'], now)).windows).toHaveLength(2);
  });
});
