import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { SecretBox } from '../../src/crypto/secret-box.ts';
import { coveredRanges, settleCoveredWindows } from '../../src/ingest/coverage/coverage-summary.ts';
import { storePage } from '../../src/ingest/coverage/store-page.ts';
import { ensureWindows, narrowWindowStart } from '../../src/ingest/coverage/window-store.ts';
import { spotRecordTable } from '../../src/streams/spot/table.ts';
import { useTestDatabase } from '../helpers/test-database.ts';

const DAY = 86_400_000;
const db = useTestDatabase('coveragesummary');
let pool: pg.Pool;
let accountId: string;

beforeAll(async () => {
  pool = new pg.Pool({ connectionString: db.url, max: 6 });
  const box = new SecretBox(Buffer.alloc(32, 5));
  const data = { name: 'a', baseUrl: 'http://x', apiKey: 'k', secretEnc: box.seal('s'), passphraseEnc: box.seal('p') };
  accountId = (await db.prisma.account.create({ data })).id;
});
afterAll(async () => {
  await pool.end();
});

/**
 * Where the summary differs from the ledger it summarises: per stream scope, the covering windows
 * (done, or finished once and being read again: migration 20261128033000_refetch_keeps_coverage)
 * merged and the number of windows, computed from every window as the readers once did.
 */
async function disagreements(): Promise<unknown[]> {
  const result = await pool.query(
    `WITH truth AS (
       SELECT account_id, stream, scope,
              COALESCE(range_agg(tstzrange(window_start, window_end, '[)')) FILTER (WHERE status = 'done' OR finished_at IS NOT NULL),
                       '{}'::tstzmultirange) AS covered,
              count(*)::int AS windows,
              max((extract(epoch from window_end - window_start) * 1000)::bigint) AS longest
         FROM sync_window GROUP BY account_id, stream, scope)
     SELECT t.stream, t.scope, t.covered::text AS truth, c.covered::text AS summary, t.windows, c.windows AS counted
       FROM truth t FULL JOIN sync_coverage c USING (account_id, stream, scope)
      WHERE t.covered IS DISTINCT FROM c.covered OR t.windows IS DISTINCT FROM c.windows
         OR c.longest_window_ms IS NULL OR t.longest > c.longest_window_ms`,
  );
  return result.rows;
}

type Status = 'pending' | 'running' | 'done' | 'failed';
type Op =
  | { kind: 'insert'; windows: { stream: 'spot' | 'transfers'; start: number; length: number; status: Status }[] }
  | { kind: 'status'; pick: number[]; status: Status }
  | { kind: 'refetch'; pick: number[] }
  | { kind: 'delete'; pick: number[] }
  | { kind: 'narrow'; pick: number; by: number }
  | { kind: 'settle' };

const status = fc.constantFrom<Status>('pending', 'running', 'done', 'failed');
const pick = fc.array(fc.nat(40), { minLength: 1, maxLength: 4 });
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('insert' as const),
    windows: fc.array(
      fc.record({
        stream: fc.constantFrom('spot' as const, 'transfers' as const),
        start: fc.nat(20),
        length: fc.integer({ min: 1, max: 6 }),
        status,
      }),
      { minLength: 1, maxLength: 5 },
    ),
  }),
  fc.record({ kind: fc.constant('status' as const), pick, status }),
  fc.record({ kind: fc.constant('refetch' as const), pick }),
  fc.record({ kind: fc.constant('delete' as const), pick }),
  fc.record({ kind: fc.constant('narrow' as const), pick: fc.nat(40), by: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant('settle' as const) }),
);

/** The windows an op picks, by position among the account's windows (wrapping round). */
async function picked(indexes: readonly number[]) {
  const all = await pool.query<{ id: string; stream: 'spot' | 'transfers'; start: string; end: string }>(
    `SELECT id, stream, (extract(epoch from window_start) * 1000)::bigint::text AS start,
            (extract(epoch from window_end) * 1000)::bigint::text AS "end"
       FROM sync_window WHERE account_id = $1 ORDER BY stream, window_start, window_end`,
    [accountId],
  );
  if (all.rows.length === 0) return [];
  return [...new Set(indexes.map((i) => all.rows[i % all.rows.length]!))];
}

async function apply(o: Op): Promise<void> {
  switch (o.kind) {
    case 'insert':
      await pool.query(
        `INSERT INTO sync_window (id, account_id, stream, scope, window_start, window_end, status, updated_at)
         SELECT gen_random_uuid(), $1, s, '', timestamptz 'epoch' + a * interval '1 day',
                timestamptz 'epoch' + b * interval '1 day', st, now()
           FROM unnest($2::sync_stream[], $3::int[], $4::int[], $5::sync_window_status[]) AS i(s, a, b, st)
         ON CONFLICT DO NOTHING`,
        [
          accountId,
          o.windows.map((w) => w.stream),
          o.windows.map((w) => w.start),
          o.windows.map((w) => w.start + w.length),
          o.windows.map((w) => w.status),
        ],
      );
      return;
    case 'status': {
      const ids = (await picked(o.pick)).map((w) => w.id);
      await pool.query(`UPDATE sync_window SET status = $2 WHERE id = ANY($1::uuid[])`, [ids, o.status]);
      return;
    }
    case 'refetch': {
      const keys = (await picked(o.pick)).map((w) => ({
        accountId,
        stream: w.stream,
        scope: '',
        start: Number(w.start),
        end: Number(w.end),
      }));
      await ensureWindows(pool, keys, true);
      return;
    }
    case 'delete': {
      const ids = (await picked(o.pick)).map((w) => w.id);
      await pool.query(`DELETE FROM sync_window WHERE id = ANY($1::uuid[])`, [ids]);
      return;
    }
    case 'narrow': {
      const [w] = await picked([o.pick]);
      if (w && Number(w.end) - Number(w.start) > o.by * DAY)
        await narrowWindowStart(pool, w.id, Number(w.start) + o.by * DAY);
      return;
    }
    case 'settle':
      await settleCoveredWindows(pool, accountId, ['spot', 'transfers']);
  }
}

async function finishWindow(client: pg.Pool, start: number, end: number): Promise<void> {
  const [w] = await ensureWindows(client, [{ accountId, stream: 'positions', scope: 'USDT-FUTURES', start, end }]);
  const page = { accountId, spec: spotRecordTable, records: [], fromCursor: null, nextCursor: null, last: true };
  await storePage(client, { ...page, windowId: w!.id });
}

describe('the coverage summary', () => {
  it('equals the done windows merged after any sequence of inserts, status changes, resets, deletes and narrowings', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 12 }), async (ops) => {
        await pool.query(`DELETE FROM sync_window WHERE account_id = $1`, [accountId]);
        for (const o of ops) {
          await apply(o);
          expect(await disagreements()).toEqual([]);
        }
      }),
      { numRuns: 60 },
    );
    // The last run's deletes leave no row behind for a stream scope without windows.
    await pool.query(`DELETE FROM sync_window WHERE account_id = $1`, [accountId]);
    expect((await pool.query(`SELECT count(*)::int AS n FROM sync_coverage`)).rows[0].n).toBe(0);
  });

  it('merges windows finished side by side by concurrent transactions into one range', async () => {
    const other = new pg.Pool({ connectionString: db.url, max: 1 });
    try {
      const [a, b] = await ensureWindows(pool, [
        { accountId, stream: 'positions', scope: 'USDT-FUTURES', start: 0, end: DAY },
        { accountId, stream: 'positions', scope: 'USDT-FUTURES', start: DAY, end: 2 * DAY },
      ]);
      const first = await pool.connect();
      await first.query('BEGIN');
      await first.query(`UPDATE sync_window SET status = 'done' WHERE id = $1`, [a!.id]);
      // The second waits for the first's lock on the stream scope's summary, then sees its range.
      const second = other.query(`UPDATE sync_window SET status = 'done' WHERE id = $1`, [b!.id]);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await first.query('COMMIT');
      first.release();
      await second;
      expect(await coveredRanges(pool, { accountId, stream: 'positions', scope: 'USDT-FUTURES' })).toEqual([
        { start: 0, end: 2 * DAY },
      ]);
      expect(await disagreements()).toEqual([]);
    } finally {
      await other.end();
    }
  });

  it('changes with the window in one transaction: a page store that dies before its commit leaves both as they were', async () => {
    await finishWindow(pool, 10 * DAY, 11 * DAY);
    const [w] = await ensureWindows(pool, [
      { accountId, stream: 'positions', scope: 'USDT-FUTURES', start: 11 * DAY, end: 12 * DAY },
    ]);
    const before = await coveredRanges(pool, { accountId, stream: 'positions', scope: 'USDT-FUTURES' });
    const doomed = new pg.Client({ connectionString: db.url });
    await doomed.connect();
    doomed.on('error', () => {});
    const pid = (await doomed.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    await doomed.query('BEGIN');
    await doomed.query(`UPDATE sync_window SET status = 'done', finished_at = now() WHERE id = $1`, [w!.id]);
    // The backend is killed mid-transaction, as a crash of the worker's database session would.
    await pool.query(`SELECT pg_terminate_backend($1)`, [pid]);
    await expect(doomed.query('COMMIT')).rejects.toThrow();
    expect(await coveredRanges(pool, { accountId, stream: 'positions', scope: 'USDT-FUTURES' })).toEqual(before);
    expect(await disagreements()).toEqual([]);
    await finishWindow(pool, 11 * DAY, 12 * DAY);
    expect(await coveredRanges(pool, { accountId, stream: 'positions', scope: 'USDT-FUTURES' })).toContainEqual({
      start: 10 * DAY,
      end: 12 * DAY,
    });
  });
});
