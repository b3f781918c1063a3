import { exchangeBounds, type ExchangeClient, type TimeWindow } from '../../exchange/index.ts';
import { type Page, pageCap, pageWindow, type PagingOptions } from '../kit/page-window.ts';
import { endCheckOf, idLessThanPaging } from '../kit/paging-strategy.ts';
import type { SpotLedgerRecord } from './columns.ts';
import { SPOT_PAGE_SIZE, spotRecordEndpoint, type SpotRecordParams } from './endpoint.ts';
import { spotRecordData } from './response.ts';

/** Spot records are read by time windows, paged by idLessThan = the last record's id. */
export const SPOT_PAGING = idLessThanPaging('ts');

/** One request for spot finance records; the range rules against "now" are judged on the exchange's clock. */
export function spotRecord(client: ExchangeClient, params: SpotRecordParams = {}): Promise<SpotLedgerRecord[]> {
  return client.call(
    spotRecordEndpoint,
    spotRecordEndpoint.request(() => client.now()),
    spotRecordData,
    params,
  );
}

/** Spot finance records of one window (idLessThan = last record's id; never by time: many share one ts). */
export function pageSpotRecords(
  client: ExchangeClient,
  window: TimeWindow,
  query: { coin?: string } = {},
  options: PagingOptions = {},
): AsyncGenerator<Page<SpotLedgerRecord>, void, undefined> {
  return pageWindow(
    spotRecordEndpoint.name,
    async (cursor) => {
      const list = await spotRecord(client, {
        ...query,
        ...exchangeBounds(window),
        limit: options.limit ?? SPOT_PAGE_SIZE,
        idLessThan: cursor ?? undefined,
      });
      return { items: list, next: list.at(-1)?.id ?? null };
    },
    options.resumeFrom ?? null,
    SPOT_PAGING.order,
    pageCap(window, options.limit ?? SPOT_PAGE_SIZE),
    endCheckOf(
      SPOT_PAGING,
      window,
      options.limit ?? SPOT_PAGE_SIZE,
      async (bounds) => (await spotRecord(client, { ...query, ...bounds, limit: 1 })).length > 0,
      { resumed: options.resumed },
    ),
    { limit: options.limit ?? SPOT_PAGE_SIZE, endsShort: options.endsShort ?? false },
  );
}
