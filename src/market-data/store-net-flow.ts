import type pg from 'pg';

import type { NetFlowPoint } from '../exchange/index.ts';

/**
 * Stores a symbol's hourly net-flow points. Each poll returns the last 24
 * hours, so consecutive polls overlap: a point is keyed by (symbol, ts) and
 * rewritten only if its value changed. Returns how many points were new or changed.
 */
export async function storeNetFlow(pool: pg.Pool, symbol: string, points: readonly NetFlowPoint[]): Promise<number> {
  if (points.length === 0) return 0;
  const result = await pool.query(
    `INSERT INTO net_flow_point (symbol, ts, net_flow, fetched_at)
     SELECT $1, timestamptz 'epoch' + p.ts * interval '1 millisecond', p.net_flow, now()
       FROM unnest($2::bigint[], $3::numeric[]) AS p(ts, net_flow)
     ON CONFLICT (symbol, ts) DO UPDATE SET net_flow = EXCLUDED.net_flow, fetched_at = now()
     WHERE net_flow_point.net_flow IS DISTINCT FROM EXCLUDED.net_flow`,
    [symbol, points.map((p) => p.ts), points.map((p) => p.netFlow)],
  );
  return result.rowCount ?? 0;
}
