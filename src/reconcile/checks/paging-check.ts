import type pg from 'pg';

import { msParam, toMs } from '../../db/sql-time.ts';
import type { ExchangeClient } from '../../exchange/index.ts';
import { RUNNING_BALANCE_STREAM, type Stream, streamDefinition, STREAMS } from '../../streams/registry.ts';
import { instant, streamName, windowName } from '../describe.ts';
import type { FreshReads } from '../fresh-reads.ts';
import type { PagingCheck, PagingSuspect, WindowName } from '../report-types.ts';
import { exchangeRecords, recountStart } from '../window-records.ts';

/*
 * Check 3: no page came back full with a single ts (paging stuck).
 *
 * Why it matters: a pager that moves by time alone (next endTime = the oldest
 * ts of the page) is stuck the moment a page comes back full with one ts: it
 * either asks for the same page forever or steps past that ts and silently
 * drops the records of it that did not fit. Ingestion pages by id, which is
 * immune; this check proves from the stored data that no stream was read by a
 * pager that got stuck (a regression, or an exchange ignoring idLessThan).
 *
 * The definition, from what is stored:
 * - A page can only come back full with a single ts T if at least a page
 *   limit of records share T. So every (stream, scope, ts) with at least
 *   page limit of the stream's stored records is a suspect; any other ts cannot have
 *   produced such a page and passes.
 * - A time-only pager that got stuck at T has kept exactly the newest `limit`
 *   records of T (each of its requests reaching T returns the same newest
 *   ones; whatever it kept of T from an earlier page is among them). So it
 *   leaves a whole number of pages at T, and fewer records than the exchange has.
 * - Each suspect is settled by asking the exchange for that one millisecond,
 *   paged by id: the stored count must equal the exchange's ("verified"),
 *   otherwise the window got stuck there ("stuck"). Positions older than the
 *   3-month horizon cannot be asked for any more ("beyond-horizon", a note).
 * - Without the exchange (recount: none) a suspect holding a whole number of
 *   pages fails as "unconfirmed" (it looks exactly like a stuck pager's
 *   leftovers); any other count passes as "plausible", which a stuck pager
 *   cannot leave behind.
 * So correct id-paged data with bursts larger than a page (the simulator has
 * bursts of 520-900 records in one ms) passes, and a stuck pager's result fails.
 */

export interface PagingCheckOptions {
  pool: pg.Pool;
  accountId: string;
  /** Page sizes to judge by instead of the ones ingestion asks for (each stream's `pageLimit`). */
  pageLimits?: Readonly<Partial<Record<Stream, number>>>;
  /** The account's exchange client, or null to judge from the stored data alone. */
  client: (() => Promise<ExchangeClient>) | null;
  /** The suspects, when found beforehand (findCrowdedInstants). */
  crowded?: readonly Crowded[];
  /** The run's window re-reads: a spot suspect they hold is judged by their count, without a request. */
  fresh?: FreshReads;
}

export type Crowded = Omit<PagingSuspect, 'exchange' | 'verdict'>;

/** Every (stream, scope, ts) holding at least a page of stored records, with the window it was read in. */
export async function findCrowdedInstants(
  pool: pg.Pool,
  accountId: string,
  pageLimits?: PagingCheckOptions['pageLimits'],
  /**
   * Per stream, the instant from which a nightly check asks (the earliest window stored since the
   * last check; a stream not listed was not touched): undefined, every instant (a full check).
   */
  since?: ReadonlyMap<Stream, number>,
): Promise<Crowded[]> {
  const crowded: Crowded[] = [];
  for (const stream of STREAMS) {
    const definition = streamDefinition(stream);
    const pageLimit = pageLimits?.[stream] ?? definition.endpoint.pageLimit;
    const from = since ? since.get(stream) : 0;
    if (from === undefined) continue;
    const found = await pool.query<{ scope: string; ts: string; stored: string }>(
      definition.crowdedInstantsQuery(accountId, pageLimit, from),
    );
    for (const row of found.rows) {
      const ts = Number(row.ts);
      const window = await windowHolding(pool, accountId, stream, row.scope, ts);
      crowded.push({ stream, scope: row.scope, ts, stored: Number(row.stored), pageLimit, window });
    }
  }
  return crowded;
}

export async function checkPagingStuck(options: PagingCheckOptions): Promise<PagingCheck> {
  const { pool, accountId } = options;
  const suspects: PagingSuspect[] = [];
  const crowded = options.crowded ?? (await findCrowdedInstants(pool, accountId, options.pageLimits));
  if (options.client) await options.fresh?.ready;
  for (const instant of crowded) {
    suspects.push(await judge(instant, options.client, options.fresh));
  }
  suspects.sort((a, b) => a.stream.localeCompare(b.stream) || a.scope.localeCompare(b.scope) || a.ts - b.ts);
  const failing = suspects.filter((s) => s.verdict === 'stuck' || s.verdict === 'unconfirmed');
  return {
    name: 'paging-stuck',
    passed: failing.length === 0,
    examined:
      suspects.length === 0
        ? 'no ts holds a full page of records'
        : `${suspects.length} ts holding at least a full page of records`,
    failures: failing.map(describeSuspect),
    notes: suspects.filter((s) => !failing.includes(s)).map(describeSuspect),
    suspects,
  };
}

async function judge(
  suspect: Crowded,
  client: PagingCheckOptions['client'],
  fresh: FreshReads | undefined,
): Promise<PagingSuspect> {
  const wholePages = suspect.stored % suspect.pageLimit === 0;
  const offline = { ...suspect, exchange: null };
  // A stuck pager leaves a whole number of full pages of one ts: any other count cannot be its
  // doing, so the exchange is not asked about it (it pages through the instant at 1 request/s).
  if (!client || !wholePages) return { ...offline, verdict: wholePages ? 'unconfirmed' : 'plausible' };
  // The same count a read of that millisecond would give: the window holding it was paged by id to its end in this run.
  const counted = suspect.stream === RUNNING_BALANCE_STREAM ? fresh?.countAt(suspect.ts) : undefined;
  if (counted !== undefined) {
    return { ...suspect, exchange: counted, verdict: counted === suspect.stored ? 'verified' : 'stuck' };
  }
  const exchange = await client();
  const instant = { start: suspect.ts, end: suspect.ts + 1 };
  if (recountStart(exchange, suspect.stream, instant) === null) {
    // The exchange can no longer say; a stored count of whole pages stays as suspect as offline.
    return { ...offline, verdict: wholePages ? 'unconfirmed' : 'beyond-horizon' };
  }
  const { count } = await exchangeRecords(exchange, suspect.stream, suspect.scope, instant);
  return { ...suspect, exchange: count, verdict: count === suspect.stored ? 'verified' : 'stuck' };
}

/** The done window the ts was read in (the latest, when windows overlap). */
async function windowHolding(
  pool: pg.Pool,
  accountId: string,
  stream: Stream,
  scope: string,
  ts: number,
): Promise<WindowName | null> {
  const result = await pool.query<{ start: string; end: string }>(
    `SELECT ${toMs('window_start')} AS start, ${toMs('window_end')} AS "end" FROM sync_window
      WHERE account_id = $1 AND stream = $2 AND scope = $3 AND status = 'done'
        AND window_start <= ${msParam(4)} AND window_end > ${msParam(4)}
      ORDER BY finished_at DESC NULLS LAST LIMIT 1`,
    [accountId, stream, scope, String(ts)],
  );
  const row = result.rows[0];
  return row ? { stream, scope, start: Number(row.start), end: Number(row.end) } : null;
}

function describeSuspect(s: PagingSuspect): string {
  const where = s.window ? `window ${windowName(s.window)}` : `${streamName(s.stream, s.scope)} (no done window)`;
  const at = `${where}: ts ${instant(s.ts)} (${s.ts}) has ${s.stored} stored records (page limit ${s.pageLimit})`;
  switch (s.verdict) {
    case 'stuck':
      return `${at}, the exchange has ${s.exchange}: paging got stuck on a full page with a single ts`;
    case 'unconfirmed':
      return `${at}, a whole number of full pages with a single ts, as a stuck pager leaves; not confirmed with the exchange (run with --recount recent or all)`;
    case 'verified':
      return `${at}, the exchange has the same: paged through`;
    case 'plausible':
      return `${at}, not a whole number of pages, which a stuck pager cannot leave (not asked of the exchange)`;
    case 'beyond-horizon':
      return `${at}, older than the exchange's ${streamDefinition(s.stream).horizon?.name ?? 'horizon'}: can no longer be asked of the exchange`;
  }
}
