import { exchangeBounds, type ExchangeClient, HORIZON_MARGIN_MS, type TimeWindow } from '../../exchange/index.ts';
import { type Page, pageCap, pageWindow, type PagingOptions } from '../kit/page-window.ts';
import { endCheckOf, endIdPaging } from '../kit/paging-strategy.ts';
import { exchangeNow } from '../spot/clock-probe.ts';
import type { PositionRecord } from './columns.ts';
import {
  historyPositionEndpoint,
  type HistoryPositionParams,
  POSITION_PAGE_SIZE,
  positionHorizon,
} from './endpoint.ts';
import { historyPositionData, type HistoryPositionPage } from './response.ts';

/** Closed positions are read by time windows of their last update, paged by idLessThan = endId. */
export const POSITION_PAGING = endIdPaging('uTime');

/** One request for closed positions; the horizon and range rules are judged on the exchange's clock. */
export function historyPosition(
  client: ExchangeClient,
  params: HistoryPositionParams = {},
): Promise<HistoryPositionPage> {
  return client.call(
    historyPositionEndpoint,
    historyPositionEndpoint.request(() => client.now()),
    historyPositionData,
    params,
  );
}

/**
 * The oldest instant a positions request may start at now (the 3-month
 * horizon, plus half the planner's margin so a request is never refused).
 * It moves with the exchange's clock: a caller that checks it after paging
 * gets a bound no earlier than any start the pager used. Read on the
 * exchange's clock as last seen (the local one may be off it).
 */
export function positionsReadableFrom(client: ExchangeClient): number {
  return positionHorizon(client.now(), HORIZON_MARGIN_MS / 2);
}

/**
 * Positions of one window (idLessThan = previous endId). Each page re-checks
 * the 3-month horizon: while a long window is paged the horizon moves, and a
 * startTime that fell behind it would be refused; positions that old are
 * leaving the exchange anyway.
 */
export function pageHistoryPositions(
  client: ExchangeClient,
  window: TimeWindow,
  query: { symbol?: string; productType?: 'USDT-FUTURES' | 'COIN-FUTURES' | 'USDC-FUTURES' } = {},
  options: PagingOptions = {},
): AsyncGenerator<Page<PositionRecord>, void, undefined> {
  return pageWindow(
    historyPositionEndpoint.name,
    async (cursor) => {
      const { startTime: from, endTime } = exchangeBounds(window);
      // The horizon is the exchange's: learn its clock before the first page is asked for.
      await exchangeNow(client);
      const startTime = Math.max(Number(from), positionsReadableFrom(client));
      if (startTime > Number(endTime)) return { items: [], next: null };
      const page = await historyPosition(client, {
        ...query,
        startTime: String(startTime),
        endTime,
        limit: options.limit ?? POSITION_PAGE_SIZE,
        idLessThan: cursor ?? undefined,
      });
      return { items: page.list, next: page.endId ?? page.list.at(-1)?.positionId ?? null };
    },
    options.resumeFrom ?? null,
    POSITION_PAGING.order,
    pageCap(window, options.limit ?? POSITION_PAGE_SIZE),
    endCheckOf(
      POSITION_PAGING,
      window,
      options.limit ?? POSITION_PAGE_SIZE,
      async (bounds) => (await historyPosition(client, { ...query, ...bounds, limit: 1 })).list.length > 0,
      { resumed: options.resumed, readableFrom: () => positionsReadableFrom(client) },
    ),
    { limit: options.limit ?? POSITION_PAGE_SIZE, endsShort: options.endsShort ?? false },
  );
}
