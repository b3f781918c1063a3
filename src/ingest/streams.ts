import {
  pageHistoryPositions,
  pageSpotRecords,
  pageSubDepositWithdrawals,
  positionsReadableFrom,
  type ExchangeClient,
  type Page,
  type TimeWindow,
  type WindowedStream,
} from '../exchange/index.ts';
import type { Stream } from './coverage/window-store.ts';
import { brokerTransferTable } from './tables/broker-transfer-table.ts';
import { futuresPositionTable, type ProductTypeValue, type ScopedPosition } from './tables/futures-position-table.ts';
import type { SpotLedgerRecord, TransferRecord } from './tables/record-types.ts';
import { spotRecordTable } from './tables/spot-record-table.ts';
import type { TableSpec } from './tables/table-spec.ts';

export const STREAMS: readonly Stream[] = ['positions', 'spot', 'transfers'];
export const PRODUCT_TYPES: readonly ProductTypeValue[] = ['USDT-FUTURES', 'COIN-FUTURES', 'USDC-FUTURES'];

/**
 * What ingestion needs to know about one history stream: how it is windowed,
 * which separately-read scopes it has, which table it lands in, and how to
 * page one window of it from a saved cursor.
 */
export interface StreamDefinition<R> {
  stream: Stream;
  endpoint: WindowedStream;
  /** Positions are read once per productType (the endpoint's default is USDT-FUTURES only). */
  scopes: readonly string[];
  table: TableSpec<R>;
  /**
   * For a stream the exchange forgets (positions): the oldest instant it still
   * serves. Anything before it in a window was not read, whatever the window says.
   */
  readableFrom?: (client: ExchangeClient) => number;
  pages(client: ExchangeClient, window: TimeWindow, scope: string, resumeFrom: string | null): AsyncIterable<Page<R>>;
}

async function* mapPages<T, R>(pages: AsyncIterable<Page<T>>, map: (item: T) => R): AsyncGenerator<Page<R>> {
  for await (const page of pages) yield { ...page, items: page.items.map(map) };
}

const positions: StreamDefinition<ScopedPosition> = {
  stream: 'positions',
  endpoint: 'historyPosition',
  scopes: PRODUCT_TYPES,
  table: futuresPositionTable,
  readableFrom: positionsReadableFrom,
  pages: (client, window, scope, resumeFrom) =>
    mapPages(
      pageHistoryPositions(client, window, { productType: scope as ProductTypeValue }, { resumeFrom }),
      (position): ScopedPosition => ({ productType: scope as ProductTypeValue, position }),
    ),
};

const spot: StreamDefinition<SpotLedgerRecord> = {
  stream: 'spot',
  endpoint: 'spotRecord',
  scopes: [''],
  table: spotRecordTable,
  pages: (client, window, _scope, resumeFrom) => pageSpotRecords(client, window, {}, { resumeFrom }),
};

const transfers: StreamDefinition<TransferRecord> = {
  stream: 'transfers',
  endpoint: 'allSubDepositWithdrawal',
  scopes: [''],
  table: brokerTransferTable,
  pages: (client, window, _scope, resumeFrom) => pageSubDepositWithdrawals(client, window, {}, { resumeFrom }),
};

export const STREAM_DEFINITIONS: { [S in Stream]: StreamDefinition<never> } = {
  positions: positions as StreamDefinition<never>,
  spot: spot as StreamDefinition<never>,
  transfers: transfers as StreamDefinition<never>,
};

/** The exchange-side window of a stored [start, end) window (the exchange's bounds are inclusive). */
export function toTimeWindow(start: number, end: number): TimeWindow {
  return { from: start, to: end, startTime: String(start), endTime: String(end - 1) };
}
