import { exchangeBounds, type ExchangeClient, type TimeWindow } from '../../exchange/index.ts';
import { type Page, pageCap, pageWindow, type PagingOptions } from '../kit/page-window.ts';
import { cursorPaging, endCheckOf } from '../kit/paging-strategy.ts';
import type { TransferRecord } from './columns.ts';
import {
  allSubDepositWithdrawalEndpoint,
  type AllSubDepositWithdrawalParams,
  allSubDepositWithdrawalRequest,
  TRANSFER_PAGE_SIZE,
} from './endpoint.ts';
import { allSubDepositWithdrawalData, type AllSubDepositWithdrawalPage } from './response.ts';

/** Transfers are read by time windows of their last update, paged by an opaque cursor. */
export const TRANSFER_PAGING = cursorPaging('ts');

/** One request for broker sub-accounts' deposits and withdrawals. */
export function allSubDepositWithdrawal(
  client: ExchangeClient,
  params: AllSubDepositWithdrawalParams = {},
): Promise<AllSubDepositWithdrawalPage> {
  return client.call(
    allSubDepositWithdrawalEndpoint,
    allSubDepositWithdrawalRequest,
    allSubDepositWithdrawalData,
    params,
  );
}

/** Broker sub-accounts' deposits and withdrawals of one window (cursor = previous endId). */
export function pageSubDepositWithdrawals(
  client: ExchangeClient,
  window: TimeWindow,
  query: { status?: 'pending' | 'fail' | 'success' } = {},
  options: PagingOptions = {},
): AsyncGenerator<Page<TransferRecord>, void, undefined> {
  return pageWindow(
    allSubDepositWithdrawalEndpoint.name,
    async (cursor) => {
      const page = await allSubDepositWithdrawal(client, {
        ...query,
        ...exchangeBounds(window),
        limit: options.limit ?? TRANSFER_PAGE_SIZE,
        cursor: cursor ?? undefined,
      });
      return { items: page.list, next: page.cursor ?? page.list.at(-1)?.txId ?? null };
    },
    options.resumeFrom ?? null,
    // Transfers are ordered by their last update, not by txId: their cursor is only an opaque mark.
    TRANSFER_PAGING.order,
    pageCap(window, options.limit ?? TRANSFER_PAGE_SIZE),
    endCheckOf(
      TRANSFER_PAGING,
      window,
      options.limit ?? TRANSFER_PAGE_SIZE,
      async (bounds) => (await allSubDepositWithdrawal(client, { ...query, ...bounds, limit: 1 })).list.length > 0,
      { resumed: options.resumed },
    ),
    { limit: options.limit ?? TRANSFER_PAGE_SIZE, endsShort: options.endsShort ?? false },
  );
}
