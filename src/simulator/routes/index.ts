import { depositWithdrawal } from './deposit-withdrawal.ts';
import type { Endpoint } from './endpoint.ts';
import { historyPosition } from './history-position.ts';
import { fundNetFlow, openInterestLimitEndpoint } from './market.ts';
import { spotRecord } from './spot-record.ts';

/** Every endpoint of the spec the simulator serves. */
export const ENDPOINTS: readonly Endpoint[] = [
  historyPosition,
  spotRecord,
  depositWithdrawal,
  fundNetFlow,
  openInterestLimitEndpoint,
];
