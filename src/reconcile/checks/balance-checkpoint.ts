import type pg from 'pg';

import { toMs } from '../../db/sql-time.ts';
import { RUNNING_BALANCE_STREAM } from '../../streams/registry.ts';
import { compareIds } from '../fresh-reads.ts';

/** A stored spot record as the chain sees it: its place (ts, id) and its balance. */
export interface ChainRecord {
  recordId: string;
  ts: number;
  balance: string;
}

/** One coin's first and last stored records, among those a check reads. */
export interface CoinEnds {
  coin: string;
  first: ChainRecord;
  last: ChainRecord;
}

/** A coin's verified chain (the balance_checkpoint row). */
export interface Checkpoint {
  coin: string;
  first: { recordId: string; ts: number };
  last: ChainRecord;
  broken: boolean;
}

/**
 * What a balance check reads. `full`: every stored record (no checkpoint yet, `reconcile --full`,
 * the scheduled full check). Otherwise the records from `from` on, each coin's first one chained
 * to `before` (the coin's last record before `from`, from its checkpoint or one index probe).
 */
export type ChainScope = {
  checkpoints: Map<string, Checkpoint>;
  /** The first and last records of each coin the check reads. */
  ends: CoinEnds[];
  /** Stored with the checkpoints: every record stored after it is in a window updated after it. */
  watermark: Date;
} & (
  | { full: true }
  | {
      full: false;
      from: number;
      before: Map<string, ChainRecord>;
      /** The last check's watermark: every window stored since was updated at or after it. */
      watermarkBefore: Date;
    }
);

/**
 * Now, or the start of the oldest transaction then open in the database, if earlier: a page
 * stamps its window with its transaction's start, and one open while this check reads may commit
 * after it, so every page the check may not have seen is stamped at or after this instant.
 */
const WATERMARK = `SELECT least(now(), (SELECT min(xact_start) FROM pg_stat_activity
                                           WHERE datname = current_database() AND pid <> pg_backend_pid())) AS at`;

const ORDER = `ts, length(record_id), record_id COLLATE "C"`;
const ORDER_DESC = `ts DESC, length(record_id) DESC, record_id COLLATE "C" DESC`;

/**
 * Where tonight's balance check starts. Every spot record is stored by a window's read, and every
 * stored page stamps its window's `updated_at`; so every record stored or changed since the last
 * check lies in a spot window updated since then, and every record before the earliest such
 * window's start was there, unchanged, when the last check verified it. The check reads from
 * there (or from a coin's checkpoint, if its chain was broken: reported until mended), never the
 * verified history; each coin's first record read is chained to its last record before, which
 * is its checkpoint's when that lies before the start, else found by one index probe.
 */
export async function planChainScope(pool: pg.Pool, accountId: string, full: boolean): Promise<ChainScope> {
  const rows = await pool.query<{
    coin: string;
    firstId: string;
    firstTs: string;
    recordId: string;
    ts: string;
    balance: string;
    broken: boolean;
    checkedAt: Date;
  }>(
    `SELECT coin, first_record_id AS "firstId", ${toMs('first_ts')} AS "firstTs", record_id AS "recordId",
            ${toMs('ts')} AS ts, balance::text, broken, checked_at AS "checkedAt"
       FROM balance_checkpoint WHERE account_id = $1`,
    [accountId],
  );
  const checkpoints = new Map<string, Checkpoint>(
    rows.rows.map((r) => [
      r.coin,
      {
        coin: r.coin,
        first: { recordId: r.firstId, ts: Number(r.firstTs) },
        last: { recordId: r.recordId, ts: Number(r.ts), balance: r.balance },
        broken: r.broken,
      },
    ]),
  );
  const watermark = (await pool.query<{ at: Date }>(WATERMARK)).rows[0]!.at;
  if (full || rows.rows.length === 0) {
    return { full: true, checkpoints, ends: await walkEnds(pool, accountId, 0), watermark };
  }

  const checkedAt = new Date(Math.min(...rows.rows.map((r) => r.checkedAt.getTime())));
  const touched = await pool.query<{ start: string | null }>(
    `SELECT ${toMs('min(window_start)')} AS start FROM sync_window
      WHERE account_id = $1 AND stream = $2 AND scope = '' AND updated_at >= $3`,
    [accountId, RUNNING_BALANCE_STREAM, checkedAt],
  );
  const starts = [Number(touched.rows[0]?.start ?? Infinity)];
  for (const c of checkpoints.values()) if (c.broken) starts.push(c.last.ts);
  // Nothing stored since, nothing broken: read from just after the newest checkpoint (nothing).
  const from = Math.min(...starts, Math.max(...[...checkpoints.values()].map((c) => c.last.ts)) + 1);

  const ends = await walkEnds(pool, accountId, from);
  const before = new Map<string, ChainRecord>();
  for (const { coin } of ends) {
    const checkpoint = checkpoints.get(coin);
    if (!checkpoint) continue; // a coin first stored since: its records all lie after `from`
    if (checkpoint.last.ts < from) before.set(coin, checkpoint.last);
    else {
      const probed = await lastBefore(pool, accountId, coin, from);
      if (probed) before.set(coin, probed);
    }
  }
  return { full: false, from, checkpoints, before, ends, watermark, watermarkBefore: checkedAt };
}

/** Each coin's first and last records from `from` on (a nightly check: the records it reads, sorted alone). */
async function walkEnds(pool: pg.Pool, accountId: string, from: number): Promise<CoinEnds[]> {
  const result = await pool.query<{ coin: string; first: ChainRecord; last: ChainRecord }>(
    `WITH walk AS (
       SELECT coin, record_id, ts, balance FROM spot_record
        WHERE account_id = $1 AND ts >= timestamptz 'epoch' + $2::bigint * interval '1 millisecond'
     )
     SELECT f.coin,
            json_build_object('recordId', f.record_id, 'ts', ${toMs('f.ts')}, 'balance', f.balance::text) AS first,
            json_build_object('recordId', l.record_id, 'ts', ${toMs('l.ts')}, 'balance', l.balance::text) AS last
       FROM (SELECT DISTINCT ON (coin) * FROM walk ORDER BY coin, ${ORDER}) f
       JOIN (SELECT DISTINCT ON (coin) * FROM walk ORDER BY coin, ${ORDER_DESC}) l USING (coin)
      ORDER BY f.coin`,
    [accountId, String(from)],
  );
  return result.rows.map((r) => ({ coin: r.coin, first: asRecord(r.first), last: asRecord(r.last) }));
}

/**
 * The coin's last record before `from`: the newest instant first (a backward walk of the
 * (account, ts) index that stops at the coin's first hit), then the newest id at that instant.
 */
async function lastBefore(pool: pg.Pool, accountId: string, coin: string, from: number): Promise<ChainRecord | null> {
  const result = await pool.query<{ recordId: string; ts: string; balance: string }>(
    `SELECT record_id AS "recordId", ${toMs('ts')} AS ts, balance::text FROM spot_record
      WHERE account_id = $1 AND coin = $2
        AND ts = (SELECT max(ts) FROM spot_record WHERE account_id = $1 AND coin = $2
                     AND ts < timestamptz 'epoch' + $3::bigint * interval '1 millisecond')
      ORDER BY length(record_id) DESC, record_id COLLATE "C" DESC LIMIT 1`,
    [accountId, coin, String(from)],
  );
  const row = result.rows[0];
  return row ? { recordId: row.recordId, ts: Number(row.ts), balance: row.balance } : null;
}

function asRecord(r: ChainRecord): ChainRecord {
  return { recordId: r.recordId, ts: Number(r.ts), balance: r.balance };
}

/** Writes the coins' checkpoints after a check (one statement: all or none), as of the check's watermark. */
export async function saveCheckpoints(
  pool: pg.Pool,
  accountId: string,
  checkpoints: Checkpoint[],
  watermark: Date,
): Promise<void> {
  if (checkpoints.length === 0) return;
  await pool.query(
    `INSERT INTO balance_checkpoint (account_id, coin, first_record_id, first_ts, record_id, ts, balance, broken, checked_at)
     SELECT $1, coin, first_id, timestamptz 'epoch' + first_ms * interval '1 millisecond', record_id,
            timestamptz 'epoch' + ms * interval '1 millisecond', balance, broken, $9
       FROM unnest($2::text[], $3::text[], $4::bigint[], $5::text[], $6::bigint[], $7::numeric[], $8::boolean[])
         AS c(coin, first_id, first_ms, record_id, ms, balance, broken)
     ON CONFLICT (account_id, coin) DO UPDATE SET
       first_record_id = EXCLUDED.first_record_id, first_ts = EXCLUDED.first_ts, record_id = EXCLUDED.record_id,
       ts = EXCLUDED.ts, balance = EXCLUDED.balance, broken = EXCLUDED.broken, checked_at = EXCLUDED.checked_at`,
    [
      accountId,
      checkpoints.map((c) => c.coin),
      checkpoints.map((c) => c.first.recordId),
      checkpoints.map((c) => String(c.first.ts)),
      checkpoints.map((c) => c.last.recordId),
      checkpoints.map((c) => String(c.last.ts)),
      checkpoints.map((c) => c.last.balance),
      checkpoints.map((c) => c.broken),
      watermark,
    ],
  );
}

/** (ts, id) order, ids compared as decimal strings. */
export function isBefore(a: { ts: number; recordId: string }, b: { ts: number; recordId: string }): boolean {
  return a.ts < b.ts || (a.ts === b.ts && compareIds(a.recordId, b.recordId) < 0);
}
