import type pg from 'pg';

import { toMs } from '../../db/sql-time.ts';
import type { ExchangeClient } from '../../exchange/index.ts';
import { recordPageGap } from '../../ingest/coverage/page-fill-evidence.ts';
import { RUNNING_BALANCE_STREAM, type Stream, streamDefinition } from '../../streams/registry.ts';
import { instant, windowName } from '../describe.ts';
import type { FreshReads } from '../fresh-reads.ts';
import { judgeByMarks, type ReadMarks } from '../read-marks.ts';
import { EDGE_SETTLED_DAYS, RECENT_RECOUNT_DAYS, type RecountMode } from '../recount-mode.ts';
import type { CountCheck, CountMismatch, WindowName } from '../report-types.ts';
import { exchangeRecords, recountStart, storedRecords } from '../window-records.ts';

/** Keys listed per side of a mismatch. */
const KEYS_LISTED = 5;

/**
 * A transfer's ts is its last update (docs/exchange-api.md §5.5): one stored while
 * pending leaves its window at the exchange when it settles, and the next
 * sync's lookback (2 days) stores it again under its new ts. A stored pending
 * transfer missing from its window is that, not a loss, while it is younger
 * than this; older, the sync should have updated it, and it counts as a mismatch.
 */
export const SETTLING_GRACE_MS = 2 * 86_400_000;

export interface CountCheckOptions {
  pool: pg.Pool;
  accountId: string;
  recount: RecountMode;
  client: () => Promise<ExchangeClient>;
  /** Keeps what the other checks will ask of the spot re-reads (fresh-reads.ts). */
  fresh?: FreshReads;
  /** A full check: `recent` re-counts every window of its days, not only those finished since the last re-count. */
  full?: boolean;
  /**
   * A window whose read started at most this long ago (ms) is re-counted from that read's marks
   * (read-marks.ts) and asked of the exchange only when they disagree; 0 (a full check): every
   * window is asked.
   */
  freshReadMs?: number;
}

/** A window to re-count, with what its read left behind and whether that read is fresh. */
interface WindowToRecount extends WindowName, ReadMarks {
  fresh: boolean;
}

/**
 * Check 4: the rows stored in each done window equal what the exchange
 * returns for that window now. The window is paged again exactly as
 * ingestion pages it and the keys of both sides are compared, so a mismatch
 * names the records on either side. `recent` re-counts the windows finished
 * in the last RECENT_RECOUNT_DAYS days and since the account's last passed
 * re-count began (each window the nights' syncs wrote, once: a window is done
 * again only when a sync reads it again), `all` every done window, `none` none,
 * `edge` the recent ones less the spot windows settled before their read
 * (recount-mode.ts says why and what that gives up).
 *
 * A window whose read is fresh (started within `freshReadMs`) is re-counted from that read's
 * marks, and asked of the exchange only when they disagree (read-marks.ts); a full check asks
 * every window.
 *
 * Streams are re-counted side by side (each endpoint has its own rate
 * budget), the windows of one stream one after another.
 */
export async function checkWindowCounts(options: CountCheckOptions): Promise<CountCheck> {
  const { pool, accountId, recount } = options;
  const base = { name: 'window-counts' as const, recount, notes: [] as string[] };
  if (recount === 'none') {
    return {
      ...base,
      passed: true,
      examined: 'not re-counted (recount: none)',
      failures: [],
      windowsRecounted: 0,
      mismatches: [],
    };
  }
  const { windows, settled } = await windowsToRecount(
    pool,
    accountId,
    recount,
    options.full ?? false,
    options.freshReadMs ?? 0,
  );
  if (settled > 0) {
    base.notes.push(
      `${settled} spot windows that had settled ${EDGE_SETTLED_DAYS} days before their read were not re-read (recount: edge); ` +
        `the balance chain, anchored at the exchange, vouches for them`,
    );
  }
  // Asked for only when a window must be asked of the exchange.
  let connected: Promise<ExchangeClient> | undefined;
  const connect = () => (connected ??= options.client());
  const mismatches: CountMismatch[] = [];
  let recounted = 0;
  let fromMarks = 0;
  const requests: Partial<Record<Stream, number>> = {};
  /** Endpoints found not to fill their pages (page-fill.ts), noted once each. */
  const unfilled = new Set<string>();
  let error: string | undefined;
  const byStream = new Map<Stream, WindowToRecount[]>();
  for (const w of windows) byStream.set(w.stream, [...(byStream.get(w.stream) ?? []), w]);
  const recountStream = async (streamWindows: WindowToRecount[]): Promise<void> => {
    for (const { fresh, readId, rows, endedAfterFullPage, ...window } of streamWindows) {
      if (error !== undefined) return;
      try {
        if (fresh) {
          const stored = await storedRecords(pool, accountId, window.stream, window.scope, window);
          if (judgeByMarks({ readId, rows, endedAfterFullPage }, stored).agrees) {
            recounted += 1;
            fromMarks += 1;
            if (window.stream === RUNNING_BALANCE_STREAM) options.fresh?.vouch(window);
            continue;
          }
        }
        const client = await connect();
        const now = client.options.clock();
        const start = recountStart(client, window.stream, window);
        const horizon = streamDefinition(window.stream).horizon?.name ?? 'horizon';
        if (start === null) {
          base.notes.push(`${windowName(window)}: not re-counted, older than the exchange's ${horizon}`);
          continue;
        }
        if (start > window.start) {
          base.notes.push(`${windowName(window)}: re-counted from ${instant(start)}, the exchange's ${horizon}`);
        }
        const args = [window.stream, window.scope, { start, end: window.end }] as const;
        const read = window.stream === RUNNING_BALANCE_STREAM ? options.fresh?.begin(args[2]) : undefined;
        const [exchange, stored] = await Promise.all([
          exchangeRecords(client, ...args, read?.see),
          storedRecords(pool, accountId, ...args),
        ]);
        read?.complete();
        const endpoint = streamDefinition(window.stream).endpoint.name;
        if (exchange.shortThenMore !== undefined && !unfilled.has(endpoint)) {
          // Short pages end no sync's window from now on; the windows they ended are named below.
          unfilled.add(endpoint);
          await recordPageGap(pool, endpoint, exchange.shortThenMore);
          base.notes.push(
            `${endpoint} answered a page shorter than the ${exchange.shortThenMore} asked for (${windowName(window)}) ` +
              `and more after it: its pages are not filled, so short pages no longer end windows (PAGE_FILL_EVIDENCE_DAYS); ` +
              `windows the sync ended on a short page before may miss records: \`reconcile --recount all\` names them`,
          );
        }
        recounted += 1;
        requests[window.stream] = (requests[window.stream] ?? 0) + exchange.pages;
        const missing = [...exchange.keys].filter((k) => !stored.keys.has(k));
        const extra = [...stored.keys].filter((k) => !exchange.keys.has(k));
        const settling = extra.filter((k) => (stored.pending.get(k) ?? -Infinity) >= now - SETTLING_GRACE_MS);
        if (settling.length > 0) {
          base.notes.push(
            `${windowName(window)}: ${settling.length} transfer(s) stored as pending are no longer in the window ` +
              `(settled since, their ts moved; the next sync updates them): ${settling.slice(0, KEYS_LISTED).join(', ')}`,
          );
        }
        if (missing.length > 0 || extra.length > settling.length || exchange.count !== stored.count - settling.length) {
          mismatches.push({
            ...window,
            stored: stored.count,
            exchange: exchange.count,
            missing: missing.slice(0, KEYS_LISTED),
            extra: extra.filter((k) => !settling.includes(k)).slice(0, KEYS_LISTED),
          });
        }
      } catch (caught) {
        error = `${windowName(window)}: ${caught instanceof Error ? caught.message : String(caught)}`;
      }
    }
  };
  // No spot window to re-read: the checks waiting on spot re-reads need not wait for the others.
  if (!byStream.has(RUNNING_BALANCE_STREAM)) options.fresh?.finish();
  await Promise.all(
    [...byStream.entries()].map(([stream, streamWindows]) =>
      // The checks waiting on the spot re-reads go on as soon as those are done.
      stream === RUNNING_BALANCE_STREAM
        ? recountStream(streamWindows).finally(() => options.fresh?.finish())
        : recountStream(streamWindows),
    ),
  );
  base.notes.sort();
  mismatches.sort((a, b) => a.stream.localeCompare(b.stream) || a.scope.localeCompare(b.scope) || a.start - b.start);
  const failures = mismatches.map(describeMismatch);
  if (error !== undefined) failures.push(`re-count stopped: ${error}`);
  return {
    ...base,
    passed: failures.length === 0,
    examined:
      `${recounted} of ${windows.length} ${recount === 'all' ? '' : 'recently finished '}windows re-counted` +
      (fromMarks > 0 ? `, ${fromMarks} of them from their own fresh reads` : '') +
      (settled > 0 ? ` (${settled} settled spot windows left to the balance chain)` : ''),
    failures,
    windowsRecounted: recounted,
    windowsFromReads: fromMarks,
    requests: Object.values(requests).reduce((sum, n) => sum + n, 0),
    requestsByStream: requests,
    mismatches,
    ...(error === undefined ? {} : { error }),
  };
}

/**
 * The done windows the mode re-counts, and how many spot windows `edge` leaves
 * to the balance chain (recount-mode.ts says why that is safe only for spot).
 */
async function windowsToRecount(
  pool: pg.Pool,
  accountId: string,
  recount: Exclude<RecountMode, 'none'>,
  full: boolean,
  freshReadMs: number,
): Promise<{ windows: WindowToRecount[]; settled: number }> {
  // A window finished before the last re-count that passed began was re-counted by it, and
  // a mismatch fails the check, so the next run reads that window again: not before.
  const since = full
    ? ''
    : `AND finished_at >= coalesce((SELECT r.started_at FROM reconciliation_report r
         WHERE r.account_id = $1 AND r.recount <> 'none'
           AND EXISTS (SELECT 1 FROM jsonb_array_elements(r.checks) c
                        WHERE c->>'name' = 'window-counts' AND (c->>'passed')::boolean)
         ORDER BY r.started_at DESC LIMIT 1), '-infinity')`;
  const recent = recount === 'all' ? '' : `AND finished_at >= now() - interval '${RECENT_RECOUNT_DAYS} days' ${since}`;
  // Fresh: the read that finished the window started within the limit (a window retried over
  // days keeps its first start, and is asked again).
  const result = await pool.query<{
    stream: Stream;
    scope: string;
    start: string;
    end: string;
    settled: boolean;
    readId: string;
    rows: number;
    endedAfterFullPage: boolean;
    fresh: boolean;
  }>(
    `SELECT stream, scope, ${toMs('window_start')} AS start, ${toMs('window_end')} AS "end",
            (stream = $2::text::sync_stream AND started_at IS NOT NULL
             AND window_end <= started_at - interval '${EDGE_SETTLED_DAYS} days') AS settled,
            read_id::text AS "readId", rows, ended_after_full_page AS "endedAfterFullPage",
            coalesce(started_at >= now() - $3::bigint * interval '1 millisecond', false) AS fresh
       FROM sync_window
      WHERE account_id = $1 AND status = 'done' ${recent}
      ORDER BY stream, scope, window_start, window_end`,
    [accountId, RUNNING_BALANCE_STREAM, String(freshReadMs)],
  );
  const rows = recount === 'edge' ? result.rows.filter((r) => !r.settled) : result.rows;
  return {
    windows: rows.map(({ settled: _settled, ...r }) => ({
      ...r,
      start: Number(r.start),
      end: Number(r.end),
      fresh: freshReadMs > 0 && r.fresh,
    })),
    settled: result.rows.length - rows.length,
  };
}

function describeMismatch(m: CountMismatch): string {
  const sides = [
    m.missing.length > 0 ? `not stored: ${m.missing.join(', ')}` : '',
    m.extra.length > 0 ? `not at the exchange: ${m.extra.join(', ')}` : '',
  ].filter((s) => s !== '');
  return (
    `${windowName(m)}: ${m.stored} rows stored, the exchange returns ${m.exchange}` +
    (sides.length > 0 ? ` (${sides.join('; ')})` : '')
  );
}
