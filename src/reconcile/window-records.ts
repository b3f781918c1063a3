import type pg from 'pg';

import type { ExchangeClient, TimeWindow } from '../exchange/index.ts';
import { type Stream, streamDefinition } from '../streams/registry.ts';

/**
 * The records of one [start, end) window of a stream and scope, by natural
 * key, as the exchange serves them now and as the database holds them: the
 * two sides a re-count compares. Each side uses the time field the window
 * was read by (the stream's own queries say which).
 */
export interface KeyedRecords {
  /** Records returned (by the exchange) or rows stored. */
  count: number;
  keys: Set<string>;
}

export interface ServedRecords extends KeyedRecords {
  /** Pages asked for: one request each. */
  pages: number;
  /**
   * Set (the limit asked for) when a page shorter than the limit was followed by more records: the
   * exchange does not fill its pages, and a sync that ended a window on a short page lost the rest
   * (src/streams/kit/page-fill.ts). The re-count itself always pages to the empty page.
   */
  shortThenMore?: number;
}

export interface StoredRecords extends KeyedRecords {
  /** Stored records whose time may still move (pending transfers), with their ts (Unix ms). */
  pending: Map<string, number>;
  /** Each record's read_id as text (read-marks.ts), undefined when the stream's query gives none. */
  readOf: Map<string, string | undefined>;
}

/**
 * Pages the window from the exchange by id, as ingestion does without page-fill evidence (to the
 * empty page, whatever the pages' sizes), and collects the keys.
 */
export async function exchangeRecords(
  client: ExchangeClient,
  stream: Stream,
  scope: string,
  window: TimeWindow,
  /** Told each record as served (fresh-reads.ts keeps what other checks ask of them). */
  observe?: (item: unknown) => void,
): Promise<ServedRecords> {
  const definition = streamDefinition(stream);
  const keys = new Set<string>();
  let count = 0;
  let pages = 0;
  let shortThenMore: number | undefined;
  for await (const page of definition.pages(client, window, scope, null, { endsShort: false })) {
    pages += 1;
    if (page.afterShort) shortThenMore = page.asked;
    for (const item of page.items) {
      keys.add(definition.keyOf(item));
      observe?.(item);
    }
    count += page.items.length;
  }
  return { count, keys, pages, ...(shortThenMore === undefined ? {} : { shortThenMore }) };
}

export async function storedRecords(
  pool: pg.Pool,
  accountId: string,
  stream: Stream,
  scope: string,
  window: TimeWindow,
): Promise<StoredRecords> {
  const query = streamDefinition(stream).storedKeysQuery(accountId, scope, window);
  const result = await pool.query<{ key: string; pending?: string | null; read?: string | null }>(query);
  const pending = new Map<string, number>();
  const readOf = new Map<string, string | undefined>();
  for (const r of result.rows) {
    if (r.pending) pending.set(r.key, Number(r.pending));
    readOf.set(r.key, r.read ?? undefined);
  }
  return { count: result.rows.length, keys: new Set(result.rows.map((r) => r.key)), pending, readOf };
}

/**
 * A stream the exchange forgets can no longer be read past its horizon, so a
 * re-count starts no earlier than the horizon, with a margin wide enough that
 * the horizon, which moves while the window is paged, never overtakes it (the
 * pager would silently raise its start otherwise).
 */
export const RECOUNT_HORIZON_MARGIN_MS = 10 * 60_000;

/** Where a re-count of the window can start; null when the whole window is past the horizon. */
export function recountStart(client: ExchangeClient, stream: Stream, window: TimeWindow): number | null {
  const oldest = streamDefinition(stream).horizon?.oldestReadable(client.options.clock(), RECOUNT_HORIZON_MARGIN_MS);
  const from = Math.max(window.start, oldest ?? window.start);
  return from < window.end ? from : null;
}
