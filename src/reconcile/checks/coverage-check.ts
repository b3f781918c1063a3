import type pg from 'pg';

import { toMs } from '../../db/sql-time.ts';
import { coveredRanges, findGaps } from '../../ingest/coverage/coverage-summary.ts';
import type { Stream } from '../../streams/registry.ts';
import { instant, streamName, windowName } from '../describe.ts';
import type { CoverageCheck, CoverageExtent, CoverageFinding } from '../report-types.ts';

interface Scoped {
  stream: Stream;
  scope: string;
}

/**
 * Check 1: coverage has no gap since the first sync. Per (stream, scope) the
 * ledger's done windows must cover one unbroken range from the earliest
 * covered start to the latest covered end; every window must be done; and
 * that range must not be narrower than any earlier report saw (a deleted done
 * window at either edge leaves no gap between the rest, only a shorter range).
 *
 * A window planned after the run began (`startedAt`: a sync started while it runs) is not judged,
 * only noted: it was not there to be done when the run began, and would fail a run that found
 * nothing wrong with what was (issue 34). A done window stays covered while read again.
 */
export async function checkCoverage(pool: pg.Pool, accountId: string, startedAt?: Date): Promise<CoverageCheck> {
  // The coverage summary: one row per stream scope with any window, however many nights passed.
  const scoped = await pool.query<Scoped & { windows: number }>(
    `SELECT stream, scope, windows FROM sync_coverage WHERE account_id = $1 ORDER BY stream, scope`,
    [accountId],
  );
  const findings: CoverageFinding[] = [];
  const extents: CoverageExtent[] = [];
  for (const { stream, scope } of scoped.rows) {
    const key = { accountId, stream, scope };
    const ranges = await coveredRanges(pool, key);
    if (ranges.length === 0) continue;
    const extent = { stream, scope, start: ranges[0]!.start, end: ranges.at(-1)!.end };
    extents.push(extent);
    for (const gap of await findGaps(pool, key, extent.start, extent.end))
      findings.push({ kind: 'gap', stream, scope, ...gap });
  }

  const unfinished = await pool.query<{
    stream: Stream;
    scope: string;
    start: string;
    end: string;
    status: 'pending' | 'running' | 'failed';
    lastError: string | null;
    later: boolean;
  }>(
    // The windows not done, through their partial index (sync_window_open_idx).
    `SELECT stream, scope, ${toMs('window_start')} AS start, ${toMs('window_end')} AS "end", status,
            last_error AS "lastError", coalesce(created_at >= $2::timestamptz, false) AS later
       FROM sync_window WHERE account_id = $1 AND status <> 'done' ORDER BY stream, scope, window_start`,
    [accountId, startedAt?.toISOString() ?? null],
  );
  let later = 0;
  for (const { later: plannedLater, ...w } of unfinished.rows) {
    if (plannedLater) later++;
    else findings.push({ kind: 'not-done', ...w, start: Number(w.start), end: Number(w.end) });
  }
  findings.push(...shrunk(extents, await earlierExtents(pool, accountId)));

  const windows = scoped.rows.reduce((n, row) => n + row.windows, 0);
  return {
    name: 'coverage',
    passed: findings.length === 0,
    examined: `${windows} windows of ${scoped.rows.length} stream scopes`,
    failures: findings.map(describeFinding),
    notes: [
      ...(scoped.rows.length === 0 ? ['no window recorded yet: nothing has been synced'] : []),
      ...(later > 0 ? [`${later} windows planned by a sync that began after this run, not judged`] : []),
    ],
    extents,
    findings,
  };
}

/**
 * The widest extent per (stream, scope) that earlier reports of the account recorded: merged as
 * each report is stored (reported_coverage_extent, by a trigger), so one row per stream scope is
 * read, not every report of every night.
 */
async function earlierExtents(pool: pg.Pool, accountId: string): Promise<CoverageExtent[]> {
  const result = await pool.query<{ stream: Stream; scope: string; start: string; end: string }>(
    `SELECT stream, scope, start_ms::text AS start, end_ms::text AS "end"
       FROM reported_coverage_extent WHERE account_id = $1 ORDER BY stream, scope`,
    [accountId],
  );
  return result.rows.map((r) => ({ ...r, start: Number(r.start), end: Number(r.end) }));
}

function shrunk(current: CoverageExtent[], earlier: CoverageExtent[]): CoverageFinding[] {
  const findings: CoverageFinding[] = [];
  for (const before of earlier) {
    const now = current.find((c) => c.stream === before.stream && c.scope === before.scope);
    if (now && now.start <= before.start && now.end >= before.end) continue;
    findings.push({
      kind: 'shrunk',
      ...before,
      current: now ? { start: now.start, end: now.end } : null,
    });
  }
  return findings;
}

function describeFinding(finding: CoverageFinding): string {
  switch (finding.kind) {
    case 'gap':
      return `${windowName(finding)}: gap, no done window covers it`;
    case 'not-done':
      return (
        `${windowName(finding)}: window is ${finding.status}` +
        (finding.lastError ? ` (last error: ${finding.lastError.split('\n')[0]})` : '')
      );
    case 'shrunk':
      return (
        `${streamName(finding.stream, finding.scope)}: earlier reports saw [${instant(finding.start)}, ${instant(finding.end)}) covered, ` +
        (finding.current
          ? `now only [${instant(finding.current.start)}, ${instant(finding.current.end)})`
          : 'now nothing') +
        ': done windows were removed'
      );
  }
}
