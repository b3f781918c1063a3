import { cp, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';

import { dropDatabase } from '../../src/db/ensure-database.ts';
import { migrateDatabase } from '../../src/db/migrations.ts';
import { DEFAULT_MIGRATIONS_DIR, migrationNames } from '../../src/db/tools/migrations-dir.ts';
import { coveredRanges } from '../../src/ingest/coverage/coverage-summary.ts';
import { streamStatuses } from '../../src/ingest/coverage/stream-status.ts';
import { freshDatabaseUrl } from '../helpers/test-database.ts';

const DAY = 86_400_000;
const MIGRATIONS = ['20261126120642_sync_coverage', '20261126123853_reported_coverage_extent'];
const url = freshDatabaseUrl('coveragebackfill');
afterAll(async () => {
  await dropDatabase(url);
});

describe('the coverage summary migrations', () => {
  it('summarise the windows and reports recorded before them, and keep the summaries from then on', async () => {
    // The database as the build before this migration left it, with a ledger of every kind of window.
    const before = await mkdtemp(path.join(os.tmpdir(), 'll-migrations-'));
    const pool = new pg.Pool({ connectionString: url });
    try {
      for (const name of await migrationNames()) {
        if (name < MIGRATIONS[0]!)
          await cp(path.join(DEFAULT_MIGRATIONS_DIR, name), path.join(before, name), { recursive: true });
      }
      await migrateDatabase(url, { migrationsDir: before });
      const account = await pool.query<{ id: string }>(
        `INSERT INTO account (id, name, base_url, api_key, secret_enc, passphrase_enc, updated_at)
         VALUES (gen_random_uuid(), 'old', 'http://x', 'k', 's', 'p', now()) RETURNING id`,
      );
      const accountId = account.rows[0]!.id;
      // Spot: days 0..30 done in overlapping windows (a lookback), 30..40 failed, 40..50 done.
      // Transfers: only pending windows. Positions: one done window.
      await pool.query(
        `INSERT INTO sync_window (id, account_id, stream, scope, window_start, window_end, status, last_error,
                                  finished_at, updated_at)
         SELECT gen_random_uuid(), $1, s, sc, timestamptz 'epoch' + a * interval '1 day',
                timestamptz 'epoch' + b * interval '1 day', st, e, CASE WHEN st = 'done' THEN now() END, now()
           FROM unnest($2::sync_stream[], $3::text[], $4::int[], $5::int[], $6::sync_window_status[], $7::text[])
                AS i(s, sc, a, b, st, e)`,
        [
          accountId,
          ['spot', 'spot', 'spot', 'spot', 'spot', 'transfers', 'positions'],
          ['', '', '', '', '', '', 'USDT-FUTURES'],
          [0, 10, 25, 30, 40, 0, 100],
          [10, 30, 30, 40, 50, 7, 130],
          ['done', 'done', 'done', 'failed', 'done', 'pending', 'done'],
          [null, null, null, 'ExchangeServerError: 503', null, null, null],
        ],
      );

      // Two reconciliations saw spot covered [0, 30 d) and then [5 d, 50 d): the widest is [0, 50 d).
      for (const [start, end] of [
        [0, 30 * DAY],
        [5 * DAY, 50 * DAY],
      ]) {
        const checks = [{ name: 'coverage', extents: [{ stream: 'spot', scope: '', start, end }] }, { name: 'x' }];
        await pool.query(
          `INSERT INTO reconciliation_report (id, account_id, recount, started_at, finished_at, passed, checks, summary)
           VALUES (gen_random_uuid(), $1, 'recent', now(), now(), true, $2, '')`,
          [accountId, JSON.stringify(checks)],
        );
      }

      // Both coverage migrations, with every later one of this build.
      const fromCoverage = (await migrationNames()).filter((name) => name >= MIGRATIONS[0]!);
      expect(fromCoverage).toEqual(expect.arrayContaining(MIGRATIONS));
      expect(await migrateDatabase(url)).toEqual(fromCoverage);
      const summary = await pool.query(
        `SELECT stream::text, scope, covered::text, windows FROM sync_coverage ORDER BY stream::text, scope`,
      );
      expect(summary.rows).toEqual([
        { stream: 'positions', scope: 'USDT-FUTURES', covered: expect.stringMatching(/^\{\[.+\)\}$/), windows: 1 },
        { stream: 'spot', scope: '', covered: expect.stringMatching(/^\{\[.+\),\[.+\)\}$/), windows: 5 },
        { stream: 'transfers', scope: '', covered: '{}', windows: 1 },
      ]);
      const spot = { accountId, stream: 'spot' as const, scope: '' };
      expect(await coveredRanges(pool, spot)).toEqual([
        { start: 0, end: 30 * DAY },
        { start: 40 * DAY, end: 50 * DAY },
      ]);
      const [, spotStatus, transfers] = await streamStatuses(pool, accountId, 60 * DAY);
      expect(spotStatus).toMatchObject({
        stream: 'spot',
        failed: [{ start: 30 * DAY, end: 40 * DAY }],
        windowsOpen: 1,
      });
      expect(transfers).toMatchObject({ stream: 'transfers', covered: [], gaps: [{ start: 0, end: 60 * DAY }] });

      const reported = () =>
        pool.query(
          `SELECT stream, scope, start_ms::text AS start, end_ms::text AS "end" FROM reported_coverage_extent`,
        );
      expect((await reported()).rows).toEqual([{ stream: 'spot', scope: '', start: '0', end: String(50 * DAY) }]);

      // From here on the triggers keep both: the failed stretch read again joins the ranges, and a
      // later report's wider extent widens the one recorded.
      await pool.query(`UPDATE sync_window SET status = 'done', last_error = NULL WHERE status = 'failed'`);
      expect(await coveredRanges(pool, spot)).toEqual([{ start: 0, end: 50 * DAY }]);
      const later = [{ name: 'coverage', extents: [{ stream: 'spot', scope: '', start: DAY, end: 60 * DAY }] }];
      await pool.query(
        `INSERT INTO reconciliation_report (id, account_id, recount, started_at, finished_at, passed, checks, summary)
         VALUES (gen_random_uuid(), $1, 'recent', now(), now(), true, $2, '')`,
        [accountId, JSON.stringify(later)],
      );
      expect((await reported()).rows).toEqual([{ stream: 'spot', scope: '', start: '0', end: String(60 * DAY) }]);
    } finally {
      await pool.end();
      await rm(before, { recursive: true, force: true });
    }
  });
});
