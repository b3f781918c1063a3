import type pg from 'pg';

import type { RequestLogEntry } from '../../src/simulator/request-log.ts';
import { type Stream, streamDefinition } from '../../src/streams/registry.ts';

/** A night's requests to one endpoint, by what asked them. */
export interface EndpointPurposes {
  path: string;
  total: number;
  sync: number;
  recount: number;
  anchor: number;
  /** The rest: the paging check, market data, retried requests. */
  other: number;
}

/**
 * Splits the night's logged requests by endpoint and purpose: the sync's are the pages its windows
 * read (one request a page), the re-count's and the anchors' are what the night's reports say they
 * sent (window-counts `requestsByStream`, balance-continuity `anchorRequests`); the rest is other.
 */
export async function nightPurposes(
  pool: pg.Pool,
  since: Date,
  log: readonly RequestLogEntry[],
): Promise<EndpointPurposes[]> {
  const rows = new Map<string, EndpointPurposes>();
  const row = (path: string) => {
    let found = rows.get(path);
    if (!found) rows.set(path, (found = { path, total: 0, sync: 0, recount: 0, anchor: 0, other: 0 }));
    return found;
  };
  for (const entry of log) row(entry.path).total += 1;
  const pathOf = (stream: Stream) => streamDefinition(stream).endpoint.path;

  const pages = await pool.query<{ stream: Stream; pages: number }>(
    `SELECT stream::text AS stream, sum(pages)::int AS pages FROM sync_window WHERE started_at >= $1 GROUP BY stream`,
    [since],
  );
  for (const p of pages.rows) row(pathOf(p.stream)).sync += p.pages;

  const reports = await pool.query<{ stream: Stream | null; recount: number; anchor: number }>(
    `SELECT s.key AS stream, sum(s.value::int)::int AS recount, 0 AS anchor
       FROM reconciliation_report r, jsonb_array_elements(r.checks) c,
            jsonb_each_text(coalesce(c->'requestsByStream', '{}'::jsonb)) s
      WHERE r.started_at >= $1 AND c->>'name' = 'window-counts' GROUP BY s.key
     UNION ALL
     SELECT NULL, 0, coalesce(sum((c->>'anchorRequests')::int), 0)::int
       FROM reconciliation_report r, jsonb_array_elements(r.checks) c
      WHERE r.started_at >= $1 AND c->>'name' = 'balance-continuity'`,
    [since],
  );
  for (const r of reports.rows) {
    if (r.stream !== null) row(pathOf(r.stream)).recount += r.recount;
    else row(pathOf('spot')).anchor += r.anchor;
  }
  for (const r of rows.values()) r.other = r.total - r.sync - r.recount - r.anchor;
  return [...rows.values()].sort((a, b) => b.total - a.total);
}
