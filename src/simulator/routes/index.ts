import { batchCancelOrder } from './batch-cancel-order.ts';
import { batchCreateSubAccounts } from './batch-create.ts';
import { cancelSymbolOrder } from './cancel-symbol-order.ts';
import { createSub } from './create-sub.ts';
import { depositWithdrawal } from './deposit-withdrawal.ts';
import type { Endpoint } from './endpoint.ts';
import { futureRecord } from './future-record.ts';
import { historyPosition } from './history-position.ts';
import { marginRecordRoute } from './margin-record.ts';
import { fundNetFlow, openInterestLimitEndpoint } from './market.ts';
import { p2pRecordRoute } from './p2p-record.ts';
import { spotRecord } from './spot-record.ts';
import { createSubAccountApiKey, modifySubAccountApiKey } from './subaccount-apikey.ts';

/** Every endpoint of the spec the simulator serves. */
export const ENDPOINTS: readonly Endpoint[] = [
  createSubAccountApiKey,
  modifySubAccountApiKey,
  batchCreateSubAccounts,
  createSub,
  cancelSymbolOrder,
  batchCancelOrder,
  historyPosition,
  spotRecord,
  futureRecord,
  marginRecordRoute,
  p2pRecordRoute,
  depositWithdrawal,
  fundNetFlow,
  openInterestLimitEndpoint,
];
