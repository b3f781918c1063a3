import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ensureWindows } from '../../src/ingest/coverage/window-store.ts';
import { checkCoverage } from '../../src/reconcile/checks/coverage-check.ts';
import { insertAccount } from '../export/seed.ts';
import { useTestDatabase } from '../helpers/test-database.ts';

/*
 * Issue 34, finding 8: a manual sync started while a reconciliation runs plans windows that are not
 * done yet; the run's coverage check judged them and failed although nothing it began with was wrong.
 */

const DAY = 86_400_000;
const db = useTestDatabase('coverageduringsync');
let pool: pg.Pool;
let accountId: string;

beforeAll(async () => {
  pool = new pg.Pool({ connectionString: db.url, max: 2 });
  accountId = await insertAccount(db.url, 'during');
});
afterAll(async () => {
  await pool.end();
});

const spot = (start: number, end: number) => ({ accountId, stream: 'spot' as const, scope: '', start, end });

describe('the coverage check of a run during which a sync starts', () => {
  it('judges only the windows planned before the run began; the later ones are noted, not failed', async () => {
    const [done] = await ensureWindows(pool, [spot(0, 10 * DAY)]);
    await pool.query(`UPDATE sync_window SET status = 'done', finished_at = now() WHERE id = $1`, [done!.id]);
    const startedAt = new Date();
    await new Promise((resolve) => setTimeout(resolve, 20));
    // The sync plans the next stretch while the run's checks are on their way.
    await ensureWindows(pool, [spot(10 * DAY, 20 * DAY)]);

    const during = await checkCoverage(pool, accountId, startedAt);
    expect(during.findings).toEqual([]);
    expect(during.passed).toBe(true);
    expect(during.notes).toEqual(['1 windows planned by a sync that began after this run, not judged']);

    // A run that begins after the sync planned it judges it as before: a window not done fails.
    const after = await checkCoverage(pool, accountId, new Date());
    expect(after.passed).toBe(false);
    expect(after.findings).toEqual([
      {
        kind: 'not-done',
        stream: 'spot',
        scope: '',
        start: 10 * DAY,
        end: 20 * DAY,
        status: 'pending',
        lastError: null,
      },
    ]);
  });
});
