import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { AccountSummary } from '../../src/accounts/account-service.ts';
import { planWindows } from '../../src/exchange/index.ts';
import { periodGaps } from '../../src/http/coverage.ts';
import {
  accountCoverage,
  coveredRanges,
  earliestWindowStart,
  findGaps,
} from '../../src/ingest/coverage/coverage-summary.ts';
import { streamStatuses } from '../../src/ingest/coverage/stream-status.ts';
import { planRetries } from '../../src/ingest/retry-plan.ts';
import { planIncrementalSync } from '../../src/ingest/sync-plan.ts';
import { checkCoverage } from '../../src/reconcile/checks/coverage-check.ts';
import { streamDefinition, STREAMS } from '../../src/streams/registry.ts';
import { useTestDatabase } from '../helpers/test-database.ts';

/*
 * Coverage and planning read O(recent), not O(history): one account synced for 10 nights, one for
 * 1,000 (their windows generated into the ledger as a nightly sync leaves them: a year's backfill,
 * then each night every stream scope from the end of its coverage less the lookback to that night,
 * cut at the grid), and every statement the readers send is run under EXPLAIN (ANALYZE, BUFFERS).
 * Blocks (shared hit + read) do not depend on the machine's load, so the ratio is asserted, never a
 * time. The way coverage was read before the summary (every done window aggregated) runs beside
 * them as the control: it must grow with the history, or the measurement could not tell.
 */

const DAY = 86_400_000;
const SETTINGS = { lookbackMs: 24 * 3_600_000, settlingLookbackMs: 48 * 3_600_000, firstDays: 30 };
/** The first night, midnight UTC; every night is read at 02:00. */
const FIRST_NIGHT = Date.UTC(2024, 0, 1) + 2 * 3_600_000;
const db = useTestDatabase('coveragescaling');
let pool: pg.Pool;

/** Blocks of each statement sent through the measuring pool, in order. */
const measured: { sql: string; blocks: number }[] = [];

interface PlanNode {
  'Shared Hit Blocks': number;
  'Shared Read Blocks': number;
}

/**
 * A client that runs every statement it is given under EXPLAIN (ANALYZE, BUFFERS) first, records its
 * blocks, then runs it for its answer. (The readers' statements are reads, or an UPDATE that the
 * second run finds nothing left to do in, as the first did here.)
 */
class MeasuringClient extends pg.Client {
  override query(...args: unknown[]): never {
    const run = super.query.bind(this) as (...a: unknown[]) => never;
    const [text, values, callback] = args;
    if (typeof text !== 'string' || typeof callback !== 'function') return run(...args);
    const explain = `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`;
    return run(
      explain,
      values,
      (error: Error | null, result: pg.QueryResult<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>) => {
        if (error) return (callback as (e: Error) => void)(error);
        const plan = result.rows[0]!['QUERY PLAN'][0].Plan;
        measured.push({ sql: text, blocks: plan['Shared Hit Blocks'] + plan['Shared Read Blocks'] });
        run(text, values, callback);
      },
    );
  }
}

const measuringPool = () => new pg.Pool({ connectionString: db.url, max: 1, Client: MeasuringClient });

async function blocksOf(body: (pool: pg.Pool) => Promise<unknown>): Promise<number> {
  const pool = measuringPool();
  try {
    measured.length = 0;
    await body(pool);
    expect(measured.length).toBeGreaterThan(0);
    return measured.reduce((sum, m) => sum + m.blocks, 0);
  } finally {
    await pool.end();
  }
}

/** The windows a year's backfill and then `nights` nightly syncs leave, all done. */
function nightlyWindows(nights: number) {
  const rows: { stream: string; scope: string; start: number; end: number; finished: number }[] = [];
  let coveredEnd = FIRST_NIGHT - DAY;
  for (let night = 0; night <= nights; night += 1) {
    const now = FIRST_NIGHT + (night - 1) * DAY;
    for (const stream of STREAMS) {
      const definition = streamDefinition(stream);
      const from = night === 0 ? now - 365 * DAY : coveredEnd - definition.lookbackMs(SETTINGS);
      for (const window of planWindows(definition.endpoint, from, now, { now })) {
        for (const scope of definition.scopes) rows.push({ stream, scope, ...window, finished: now + 600_000 });
      }
    }
    coveredEnd = now;
  }
  return rows;
}

async function addAccount(name: string, nights: number): Promise<{ account: AccountSummary; now: number }> {
  const created = await pool.query<{ id: string; created_at: Date }>(
    `INSERT INTO account (id, name, uid, base_url, api_key, secret_enc, passphrase_enc, is_broker_parent,
                          is_unified_account, updated_at)
     VALUES (gen_random_uuid(), $1, $1, 'http://x', 'k', 's', 'p', true, true, now()) RETURNING id, created_at`,
    [name],
  );
  const id = created.rows[0]!.id;
  const rows = nightlyWindows(nights);
  await pool.query(
    `INSERT INTO sync_window (id, account_id, stream, scope, window_start, window_end, status, pages, rows,
                              started_at, finished_at, updated_at)
     SELECT gen_random_uuid(), $1, s, sc, timestamptz 'epoch' + a * interval '1 millisecond',
            timestamptz 'epoch' + b * interval '1 millisecond', 'done', 1, 10,
            timestamptz 'epoch' + f * interval '1 millisecond', timestamptz 'epoch' + f * interval '1 millisecond', now()
       FROM unnest($2::sync_stream[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[]) AS i(s, sc, a, b, f)
     ON CONFLICT DO NOTHING`,
    [
      id,
      rows.map((r) => r.stream),
      rows.map((r) => r.scope),
      rows.map((r) => String(r.start)),
      rows.map((r) => String(r.end)),
      rows.map((r) => String(r.finished)),
    ],
  );
  const now = FIRST_NIGHT + nights * DAY;
  // Tonight's sync under way: one spot window not done yet, as in any night.
  await pool.query(
    `INSERT INTO sync_window (id, account_id, stream, scope, window_start, window_end, status, updated_at)
     VALUES (gen_random_uuid(), $1, 'spot', '', timestamptz 'epoch' + $2::bigint * interval '1 millisecond',
             timestamptz 'epoch' + $3::bigint * interval '1 millisecond', 'running', now())`,
    [id, String(now - DAY - SETTINGS.lookbackMs), String(now)],
  );
  // A reconciliation a night, each report's checks of a realistic size (a few kB).
  const extents = (await coverageExtents(id)).map((e) => ({ ...e, start: Number(e.start), end: Number(e.end) }));
  await pool.query(
    `INSERT INTO reconciliation_report (id, account_id, recount, started_at, finished_at, passed, checks, summary)
     SELECT gen_random_uuid(), $1, 'recent', t, t + interval '1 minute', true,
            jsonb_build_array(
              jsonb_build_object('name', 'coverage', 'passed', true, 'extents', $3::jsonb, 'findings', '[]'::jsonb),
              jsonb_build_object('name', 'window-counts', 'passed', true,
                                 'notes', (SELECT jsonb_agg('window ' || g || ' of night ' || n || ': stored and exchange agree')
                                             FROM generate_series(1, 40) g))),
            'passed'
       FROM generate_series(1, $2::int) AS n
      CROSS JOIN LATERAL (SELECT timestamptz 'epoch' + ($4::bigint + n * $5::bigint) * interval '1 millisecond' AS t) x`,
    [id, nights, JSON.stringify(extents), String(FIRST_NIGHT), String(DAY)],
  );
  const account: AccountSummary = {
    id,
    name,
    uid: name,
    baseUrl: 'http://x',
    apiKey: 'k',
    isBrokerParent: true,
    isUnifiedAccount: true,
    disabledAt: null,
    createdAt: created.rows[0]!.created_at,
  };
  return { account, now };
}

/** Each stream scope's covered extent, as a coverage check records it. */
async function coverageExtents(accountId: string) {
  const result = await pool.query<{ stream: string; scope: string; start: string; end: string }>(
    `SELECT stream::text AS stream, scope, (extract(epoch from lower(covered)) * 1000)::bigint::text AS start,
            (extract(epoch from upper(covered)) * 1000)::bigint::text AS "end"
       FROM sync_coverage WHERE account_id = $1 ORDER BY stream, scope`,
    [accountId],
  );
  return result.rows;
}

/** Every report's coverage extents: how the coverage check read what earlier reports saw. */
const REPORTS_BEFORE = `SELECT e->>'stream', e->>'scope', min((e->>'start')::bigint), max((e->>'end')::bigint)
                          FROM reconciliation_report r,
                               jsonb_path_query(r.checks, '$[*] ? (@.name == "coverage").extents[*]') e
                         WHERE r.account_id = $1 GROUP BY 1, 2`;

/** Every done window of every stream scope, merged: how coverage was read before the summary. */
const BEFORE_SUMMARY = `SELECT stream, scope, range_agg(tstzrange(window_start, window_end, '[)'))
                          FROM sync_window WHERE account_id = $1 AND status = 'done' GROUP BY stream, scope`;

type Reader = (pool: pg.Pool, account: AccountSummary, now: number) => Promise<unknown>;

const READERS: Record<string, Reader> = {
  'sync plan (planIncrementalSync)': (p, a, now) => planIncrementalSync(p, a, STREAMS, now, SETTINGS),
  'retry plan (settle + unfinished)': (p, a, now) => planRetries(p, a.id, STREAMS, now),
  'backfill plan (accountCoverage)': (p, a) => accountCoverage(p, a.id),
  'status (streamStatuses)': (p, a, now) => streamStatuses(p, a.id, now),
  'export coverage (a year, every scope)': async (p, a, now) => {
    for (const stream of STREAMS) {
      for (const scope of streamDefinition(stream).scopes) {
        await findGaps(p, { accountId: a.id, stream, scope }, now - 365 * DAY, now);
        await coveredRanges(p, { accountId: a.id, stream, scope });
      }
    }
    return earliestWindowStart(p, a.id, STREAMS);
  },
  'web period gaps as of a week ago': (p, a, now) =>
    periodGaps(p, a.id, 'none', { start: new Date(now - 365 * DAY), end: new Date(now) }, new Date(now - 7 * DAY), now),
  'reconciliation coverage check': (p, a) => checkCoverage(p, a.id),
};

let small: { account: AccountSummary; now: number };
let big: { account: AccountSummary; now: number };

beforeAll(async () => {
  pool = new pg.Pool({ connectionString: db.url, max: 2 });
  small = await addAccount('ten-nights', 10);
  big = await addAccount('thousand-nights', 1_000);
  await pool.query('VACUUM ANALYZE sync_window');
  await pool.query('VACUUM ANALYZE sync_coverage');
  await pool.query('VACUUM ANALYZE reconciliation_report');
}, 120_000);
afterAll(async () => {
  await pool.end();
});

describe('coverage and planning after 10 and after 1,000 nights', () => {
  it('read a small constant number of blocks however many nights have passed', async () => {
    const windows = await pool.query<{ name: string; n: number }>(
      `SELECT a.name, count(*)::int AS n FROM sync_window w JOIN account a ON a.id = w.account_id GROUP BY a.name`,
    );
    const count = Object.fromEntries(windows.rows.map((r) => [r.name, r.n]));
    expect(count['thousand-nights']).toBeGreaterThan(30 * count['ten-nights']!);

    const figures: { reader: string; small: number; big: number }[] = [];
    for (const [reader, read] of Object.entries(READERS)) {
      figures.push({
        reader,
        small: await blocksOf((p) => read(p, small.account, small.now)),
        big: await blocksOf((p) => read(p, big.account, big.now)),
      });
    }
    const controls = [
      {
        reader: 'control: every done window merged (before the summary)',
        small: await blocksOf((p) => p.query(BEFORE_SUMMARY, [small.account.id])),
        big: await blocksOf((p) => p.query(BEFORE_SUMMARY, [big.account.id])),
      },
      {
        reader: "control: every report's coverage extents (before reported_coverage_extent)",
        small: await blocksOf((p) => p.query(REPORTS_BEFORE, [small.account.id])),
        big: await blocksOf((p) => p.query(REPORTS_BEFORE, [big.account.id])),
      },
    ];
    console.log(
      [
        `windows: ${count['ten-nights']} after 10 nights, ${count['thousand-nights']} after 1,000`,
        '| reader | blocks, 10 nights | blocks, 1,000 nights |',
        '|---|---|---|',
        ...[...figures, ...controls].map((f) => `| ${f.reader} | ${f.small} | ${f.big} |`),
      ].join('\n'),
    );

    // The controls grow with the history: the measurement sees O(history) when it is there.
    for (const control of controls) expect(control.big, control.reader).toBeGreaterThan(10 * control.small);
    for (const f of figures) {
      // Within a small constant of the 10-night case (an index level more at most).
      expect(f.big, f.reader).toBeLessThanOrEqual(Math.ceil(1.25 * f.small) + 2);
    }
  });

  it('keeps a window turning done (and a reset) as cheap after 1,000 nights as after 10', async () => {
    // What the trigger does in the transaction that stores a window's last page: the summary row's
    // update, and for a reset (--refetch) the done windows near the one reset.
    const figures: Record<string, [number, number]> = {};
    for (const plus of [true, false]) {
      const client = await pool.connect();
      try {
        // Measured inside a transaction that is rolled back: the ledger stays as generated.
        const measure = async (account: AccountSummary, now: number) => {
          await client.query('BEGIN');
          const result = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
            `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) SELECT sync_coverage_apply($1, 'spot', '',
               ${plus ? '$2' : "'{}'"}::tstzmultirange, ${plus ? "'{}'" : '$2'}::tstzmultirange, 0, 0::bigint)`,
            [account.id, `{[${new Date(now - 2 * DAY).toISOString()},${new Date(now - DAY).toISOString()})}`],
          );
          await client.query('ROLLBACK');
          const plan = result.rows[0]!['QUERY PLAN'][0].Plan;
          return plan['Shared Hit Blocks'] + plan['Shared Read Blocks'];
        };
        // Once unmeasured: the session's first call compiles the function and fills its caches.
        await measure(small.account, small.now);
        figures[plus ? 'done' : 'reset'] = [
          await measure(small.account, small.now),
          await measure(big.account, big.now),
        ];
      } finally {
        client.release();
      }
    }
    console.log(`window turning done: ${figures.done}; window reset: ${figures.reset} (blocks, 10 vs 1,000 nights)`);
    for (const [smallBlocks, bigBlocks] of Object.values(figures)) {
      expect(bigBlocks).toBeLessThanOrEqual(Math.ceil(1.25 * smallBlocks) + 2);
    }
  });
});
