import type pg from 'pg';

import type { ShapeDrift, ShapeOutcome } from '../exchange/responses/shape-drift.ts';

/** One (endpoint, field, kind) of exchange_shape_drift: how often, since when. */
export interface ShapeDriftRow {
  endpoint: string;
  field: string;
  kind: ShapeOutcome;
  count: number;
  firstSeenAt: Date;
  lastSeenAt: Date;
}

interface Row {
  endpoint: string;
  field: string;
  kind: ShapeOutcome;
  count: string;
  first_seen_at: Date;
  last_seen_at: Date;
}

const toRow = (row: Row): ShapeDriftRow => ({
  endpoint: row.endpoint,
  field: row.field,
  kind: row.kind,
  count: Number(row.count),
  firstSeenAt: row.first_seen_at,
  lastSeenAt: row.last_seen_at,
});

/**
 * Adds one answer's drift (or one refusal) to the counts, in one statement. Rows go in sorted,
 * so two processes adding the same kinds at once take their row locks in the same order.
 */
export async function recordShapeDrift(pool: pg.Pool, endpoint: string, drift: ShapeDrift[]): Promise<void> {
  if (drift.length === 0) return;
  const sorted = [...drift].sort((a, b) => (a.field + a.kind < b.field + b.kind ? -1 : 1));
  await pool.query(
    `INSERT INTO exchange_shape_drift (endpoint, field, kind, count)
     SELECT $1, u.field, u.kind, u.count FROM unnest($2::text[], $3::text[], $4::bigint[]) AS u(field, kind, count)
     ON CONFLICT (endpoint, field, kind) DO UPDATE
       SET count = exchange_shape_drift.count + EXCLUDED.count, last_seen_at = now()`,
    [endpoint, sorted.map((d) => d.field), sorted.map((d) => d.kind), sorted.map((d) => d.count)],
  );
}

/** Every count, by endpoint, kind and field. */
export async function listShapeDrift(pool: pg.Pool): Promise<ShapeDriftRow[]> {
  const result = await pool.query<Row>(
    `SELECT endpoint, field, kind, count::text AS count, first_seen_at, last_seen_at
       FROM exchange_shape_drift ORDER BY endpoint, kind, field`,
  );
  return result.rows.map(toRow);
}

/**
 * The rows that need an alert, marked alerted by the same statement, so with any number of
 * workers each is handed to one: a drift once (the first time it is seen), a refusal again when
 * it is seen a day or more after its last alert (a refused window is worse than a drift).
 */
export async function claimShapeDriftAlerts(pool: pg.Pool): Promise<ShapeDriftRow[]> {
  const result = await pool.query<Row>(
    `UPDATE exchange_shape_drift SET alerted_at = now()
      WHERE alerted_at IS NULL OR (kind = 'refused' AND last_seen_at > alerted_at + interval '1 day')
      RETURNING endpoint, field, kind, count::text AS count, first_seen_at, last_seen_at`,
  );
  return result.rows.map(toRow).sort((a, b) => (a.endpoint + a.field < b.endpoint + b.field ? -1 : 1));
}
