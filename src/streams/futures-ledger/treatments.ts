import { type Treatment, treatment as t } from '../kit/treatments.ts';
import type { FutureTaxType } from './tax-types.ts';

const MARKET = t('market');
const RESULT = t(
  'market',
  'futures result in the margin coin: paid = disposal (its fee’s coins too) at market value, received = acquisition',
);
/**
 * Each futureTaxType's treatment (docs/exchange-api.md §5.6; docs/reports.md, "Treatments"): the
 * futures history's one table, declared with it (stream.ts).
 */
export const FUTURES_TREATMENTS = {
  TRANSFER_IN: t('own-move', 'from the user’s spot wallet'),
  TRANSFER_OUT: t('own-move', 'to the user’s spot wallet'),
  ORDER_DEALT_FROZEN_OUT: MARKET,
  ORDER_DEALT_IN: MARKET,
  ORDER_PLF_FEE_OUT: t('other-fee', 'a futures fee paid in the margin coin'),
  EXCHANGE_SOURCE_TOKEN_USER_OUT: MARKET,
  EXCHANGE_TARGET_TOKEN_USER_IN: MARKET,
  OPEN_LONG: t('other-fee', 'an open’s fee'),
  OPEN_SHORT: t('other-fee', 'an open’s fee'),
  BUY_DEAL: RESULT,
  SELL_DEAL: RESULT,
  CLOSE_LONG: RESULT,
  CLOSE_SHORT: RESULT,
  FORCE_CLOSE_LONG: RESULT,
  FORCE_CLOSE_SHORT: RESULT,
  BURST_CLOSE_LONG: RESULT,
  BURST_CLOSE_SHORT: RESULT,
  OFFSET_REDUCE_CLOSE_LONG: RESULT,
  OFFSET_REDUCE_CLOSE_SHORT: RESULT,
  FORCE_BUY_SSM: RESULT,
  FORCE_SELL_SSM: RESULT,
  BURST_BUY_SSM: RESULT,
  BURST_SELL_SSM: RESULT,
  RISK_LIQ_USER_IN: RESULT,
  RISK_LIQ_USER_OUT: RESULT,
  INTEREST_SETTLEMENT_OUT: t('other-fee', 'interest paid'),
  CONTRACT_MAIN_SETTLE_FEE_USER_IN: t('market', 'funding received: an acquisition at market value'),
  CONTRACT_MAIN_SETTLE_FEE_USER_OUT: t('market', 'funding paid: a disposal at market value'),
} satisfies Record<FutureTaxType, Treatment>;
