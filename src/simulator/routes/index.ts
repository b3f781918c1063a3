import { SIM_LEDGER_ENDPOINTS } from '../ledgers/index.ts';
import { batchCancelOrder } from './batch-cancel-order.ts';
import { batchCreateSubAccounts } from './batch-create.ts';
import { cancelSymbolOrder } from './cancel-symbol-order.ts';
import { createSub } from './create-sub.ts';
import { depositWithdrawal } from './deposit-withdrawal.ts';
import type { Endpoint } from './endpoint.ts';
import { futureRecord } from './future-record.ts';
import { historyPosition } from './history-position.ts';
import { fundNetFlow, openInterestLimitEndpoint } from './market.ts';
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
  // The wallet ledgers' tax endpoints (margin-record, p2p-record): ledgers/index.ts.
  ...SIM_LEDGER_ENDPOINTS,
  depositWithdrawal,
  fundNetFlow,
  openInterestLimitEndpoint,
];
