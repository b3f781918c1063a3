import type pg from 'pg';

import { type FillEvidence, fillsPages } from '../../streams/kit/page-fill.ts';

/**
 * The page_fill_evidence table (src/streams/kit/page-fill.ts says what it proves and what
 * catches a cap): one row per (endpoint, limit), installation-wide.
 */

/** A full page refreshes the evidence at most this often: the row stays cold under many workers. */
const FULL_PAGE_REFRESH_MS = 3_600_000;

/** Per pool, when this process last refreshed each (endpoint, limit): most full pages write nothing. */
const refreshed = new WeakMap<pg.Pool, Map<string, number>>();

/** Whether a short page of the endpoint at `limit` ends a window now (the database's clock). */
export async function endsShort(pool: pg.Pool, endpoint: string, limit: number, periodMs: number): Promise<boolean> {
  if (!(periodMs > 0)) return false;
  const { rows } = await pool.query<{ full: string | null; gap: string | null; now: string }>(
    `SELECT (extract(epoch FROM e.last_full_page_at) * 1000)::bigint::text AS full,
            (extract(epoch FROM e.last_gap_at) * 1000)::bigint::text AS gap,
            (extract(epoch FROM now()) * 1000)::bigint::text AS now
       FROM (SELECT 1) one LEFT JOIN page_fill_evidence e ON e.endpoint = $1 AND e.page_limit = $2`,
    [endpoint, limit],
  );
  const row = rows[0]!;
  const evidence: FillEvidence = {
    lastFullPageAt: row.full === null ? null : Number(row.full),
    lastGapAt: row.gap === null ? null : Number(row.gap),
  };
  return fillsPages(evidence, Number(row.now), periodMs);
}

/** A page of exactly `limit` records was answered and stored. */
export async function recordFullPage(pool: pg.Pool, endpoint: string, limit: number): Promise<void> {
  const key = `${endpoint} ${limit}`;
  const seen = refreshed.get(pool) ?? new Map<string, number>();
  refreshed.set(pool, seen);
  if (Date.now() - (seen.get(key) ?? -Infinity) < FULL_PAGE_REFRESH_MS) return;
  await pool.query(
    `INSERT INTO page_fill_evidence (endpoint, page_limit, last_full_page_at) VALUES ($1, $2, now())
     ON CONFLICT (endpoint, page_limit) DO UPDATE SET last_full_page_at = now()
      WHERE page_fill_evidence.last_full_page_at IS NULL
         OR page_fill_evidence.last_full_page_at < now() - $3::bigint * interval '1 millisecond'`,
    [endpoint, limit, String(FULL_PAGE_REFRESH_MS)],
  );
  seen.set(key, Date.now());
}

/**
 * A page shorter than `limit` was followed by more records: the endpoint does not fill its pages,
 * and short pages end no window for the evidence period. Always written (it withdraws evidence).
 */
export async function recordPageGap(pool: pg.Pool, endpoint: string, limit: number): Promise<void> {
  await pool.query(
    `INSERT INTO page_fill_evidence (endpoint, page_limit, last_gap_at) VALUES ($1, $2, now())
     ON CONFLICT (endpoint, page_limit) DO UPDATE SET last_gap_at = now()`,
    [endpoint, limit],
  );
  // A full page met after this gap refreshes the evidence's age without waiting out the hour.
  refreshed.get(pool)?.delete(`${endpoint} ${limit}`);
}
