import { MAX_PAGE_SIZE } from '../exchange/paging/pagers.ts';
import type pg from 'pg';
import { positionHorizon, type ExchangeClient } from '../exchange/index.ts';
import type { Stream } from '../ingest/coverage/window-store.ts';
import { STREAM_DEFINITIONS, toTimeWindow } from '../ingest/streams.ts';
import type { ScopedPosition } from '../ingest/tables/futures-position-table.ts';
import type { SpotLedgerRecord, TransferRecord } from '../ingest/tables/record-types.ts';
import { msParam, toMs } from './sql.ts';

/**
 * The records of one [start, end) window of a stream and scope, by natural
 * key, as the exchange serves them now and as the database holds them: the
 * two sides a re-count compares. Each side uses the time field the window
 * was read by: spot and transfers by ts, positions by updated_time (utime)
 * within their productType.
 */
export interface KeyedRecords {
  /** Records returned (by the exchange) or rows stored. */
  count: number;
  keys: Set<string>;
}

export interface StoredRecords extends KeyedRecords {
  /** Stored transfers still `pending`, with their ts (Unix ms): the ones whose ts may since have moved. */
  pending: Map<string, number>;
}

/** The page size ingestion asks for (the pagers' defaults, decisions.md / spec Limits). */
export const PAGE_LIMITS: Readonly<Record<Stream, number>> = {
  spot: MAX_PAGE_SIZE.spotRecord,
  positions: MAX_PAGE_SIZE.historyPosition,
  transfers: MAX_PAGE_SIZE.allSubDepositWithdrawal,
};

function keyOf(stream: Stream, item: unknown): string {
  switch (stream) {
    case 'spot':
      return (item as SpotLedgerRecord).id;
    case 'positions':
      return (item as ScopedPosition).position.positionId;
    case 'transfers': {
      const transfer = item as TransferRecord;
      return `${transfer.txId}/${transfer.type}`;
    }
  }
}

/** Pages the window from the exchange by id, exactly as ingestion does, and collects the keys. */
export async function exchangeRecords(
  client: ExchangeClient,
  stream: Stream,
  scope: string,
  start: number,
  end: number,
): Promise<KeyedRecords> {
  const keys = new Set<string>();
  let count = 0;
  for await (const page of STREAM_DEFINITIONS[stream].pages(client, toTimeWindow(start, end), scope, null)) {
    for (const item of page.items) keys.add(keyOf(stream, item));
    count += page.items.length;
  }
  return { count, keys };
}

const STORED_KEYS: Record<Stream, string> = {
  spot: `SELECT record_id AS key FROM spot_record
          WHERE account_id = $1 AND ts >= ${msParam(2)} AND ts < ${msParam(3)}`,
  positions: `SELECT position_id AS key FROM futures_position
               WHERE account_id = $1 AND product_type = $4::text::product_type
                 AND updated_time >= ${msParam(2)} AND updated_time < ${msParam(3)}`,
  transfers: `SELECT tx_id || '/' || type AS key, CASE WHEN status = 'pending' THEN ${toMs('ts')} END AS pending
                FROM broker_transfer
               WHERE account_id = $1 AND ts >= ${msParam(2)} AND ts < ${msParam(3)}`,
};

export async function storedRecords(
  pool: pg.Pool,
  accountId: string,
  stream: Stream,
  scope: string,
  start: number,
  end: number,
): Promise<StoredRecords> {
  const params: unknown[] = [accountId, String(start), String(end)];
  if (stream === 'positions') params.push(scope);
  const result = await pool.query<{ key: string; pending?: string | null }>(STORED_KEYS[stream], params);
  const pending = new Map<string, number>();
  for (const r of result.rows) if (r.pending) pending.set(r.key, Number(r.pending));
  return { count: result.rows.length, keys: new Set(result.rows.map((r) => r.key)), pending };
}

/**
 * Positions older than the exchange's 3-month horizon can no longer be read
 * (40704), so a re-count starts no earlier than the horizon, with a margin
 * wide enough that the horizon, which moves while the window is paged, never
 * overtakes it (the pager would silently raise its start otherwise).
 */
export const RECOUNT_HORIZON_MARGIN_MS = 10 * 60_000;

/** Where a re-count of the window can start; null when the whole window is past the horizon. */
export function recountStart(client: ExchangeClient, stream: Stream, start: number, end: number): number | null {
  if (stream !== 'positions') return start;
  const from = Math.max(start, positionHorizon(client.options.clock(), RECOUNT_HORIZON_MARGIN_MS));
  return from < end ? from : null;
}
