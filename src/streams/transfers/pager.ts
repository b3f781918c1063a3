import { exchangeBounds, type ExchangeClient, type TimeWindow } from '../../exchange/index.ts';
import { type Page, pageCap, pageWindow, type PagingOptions } from '../kit/page-window.ts';
import type { TransferRecord } from './columns.ts';
import {
  allSubDepositWithdrawalEndpoint,
  type AllSubDepositWithdrawalParams,
  allSubDepositWithdrawalRequest,
  TRANSFER_PAGE_SIZE,
} from './endpoint.ts';
import { allSubDepositWithdrawalData, type AllSubDepositWithdrawalPage } from './response.ts';

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
    'opaque',
    pageCap(window, options.limit ?? TRANSFER_PAGE_SIZE),
    undefined,
    { limit: options.limit ?? TRANSFER_PAGE_SIZE, endsShort: options.endsShort ?? false },
  );
}
