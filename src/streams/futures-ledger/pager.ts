import { exchangeBounds, type ExchangeClient, HORIZON_MARGIN_MS, type TimeWindow } from '../../exchange/index.ts';
import { type Page, pageCap, pageWindow, type PagingOptions } from '../kit/page-window.ts';
import { endCheckOf, idLessThanPaging } from '../kit/paging-strategy.ts';
import type { ProductTypeValue } from '../positions/table.ts';
import type { FuturesLedgerRecord } from './columns.ts';
import {
  FUTURE_RECORD_PAGE_SIZE,
  futureRecordEndpoint,
  futureRecordHorizon,
  type FutureRecordParams,
} from './endpoint.ts';
import { futureRecordData } from './response.ts';

/** Futures finance records are read by time windows, paged by idLessThan = the last record's id. */
export const FUTURE_RECORD_PAGING = idLessThanPaging('ts');

/** One request for futures finance records; the range rules are judged on the exchange's clock. */
export function futureRecord(client: ExchangeClient, params: FutureRecordParams): Promise<FuturesLedgerRecord[]> {
  return client.call(
    futureRecordEndpoint,
    futureRecordEndpoint.request(() => client.now()),
    futureRecordData,
    params,
  );
}

/**
 * The oldest instant the pager may ask for now (the assumed horizon, plus half the planner's
 * margin), on the exchange's clock as last seen: checked after a window's last page, it is no
 * earlier than any start the pager used.
 */
export function futureRecordsReadableFrom(client: ExchangeClient): number {
  return futureRecordHorizon(client.now(), HORIZON_MARGIN_MS / 2);
}

/** Futures finance records of one window and productType (idLessThan = last record's id; never by time). */
export function pageFutureRecords(
  client: ExchangeClient,
  window: TimeWindow,
  query: { productType: ProductTypeValue; marginCoin?: string },
  options: PagingOptions = {},
): AsyncGenerator<Page<FuturesLedgerRecord>, void, undefined> {
  return pageWindow(
    futureRecordEndpoint.name,
    async (cursor) => {
      const list = await futureRecord(client, {
        ...query,
        ...exchangeBounds(window),
        limit: options.limit ?? FUTURE_RECORD_PAGE_SIZE,
        idLessThan: cursor ?? undefined,
      });
      return { items: list, next: list.at(-1)?.id ?? null };
    },
    options.resumeFrom ?? null,
    FUTURE_RECORD_PAGING.order,
    pageCap(window, options.limit ?? FUTURE_RECORD_PAGE_SIZE),
    endCheckOf(
      FUTURE_RECORD_PAGING,
      window,
      options.limit ?? FUTURE_RECORD_PAGE_SIZE,
      async (bounds) => (await futureRecord(client, { ...query, ...bounds, limit: 1 })).length > 0,
      { resumed: options.resumed, readableFrom: () => futureRecordsReadableFrom(client) },
    ),
    { limit: options.limit ?? FUTURE_RECORD_PAGE_SIZE, endsShort: options.endsShort ?? false },
  );
}
