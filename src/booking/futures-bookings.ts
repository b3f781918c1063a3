import { FUTURE_TAX_TYPES } from '../streams/futures-ledger/tax-types.ts';

/**
 * What a futures finance record is, for the books (docs/reports.md, futures-ledger): money moved
 * between spot and futures, a position's realized result, a trading fee, a funding settlement, a
 * liquidation, or something else the ledger lists. A type outside the documented list is `unmapped`.
 */
export const FUTURES_LEDGER_CATEGORIES = [
  'transfer',
  'realized-pnl',
  'fee',
  'funding',
  'liquidation',
  'other',
  'unmapped',
] as const;
export type FuturesLedgerCategory = (typeof FUTURES_LEDGER_CATEGORIES)[number];

/** Every documented futureTaxType's category (docs/exchange-api.md §8.5). */
export const FUTURES_BOOKINGS: Readonly<Record<(typeof FUTURE_TAX_TYPES)[number], FuturesLedgerCategory>> = {
  TRANSFER_IN: 'transfer',
  TRANSFER_OUT: 'transfer',
  ORDER_DEALT_FROZEN_OUT: 'other',
  ORDER_DEALT_IN: 'other',
  ORDER_PLF_FEE_OUT: 'fee',
  EXCHANGE_SOURCE_TOKEN_USER_OUT: 'other',
  EXCHANGE_TARGET_TOKEN_USER_IN: 'other',
  // An open moves no money but its fee (amount 0): booked as the fee it is.
  OPEN_LONG: 'fee',
  OPEN_SHORT: 'fee',
  BUY_DEAL: 'realized-pnl',
  SELL_DEAL: 'realized-pnl',
  CLOSE_LONG: 'realized-pnl',
  CLOSE_SHORT: 'realized-pnl',
  OFFSET_REDUCE_CLOSE_LONG: 'realized-pnl',
  OFFSET_REDUCE_CLOSE_SHORT: 'realized-pnl',
  FORCE_CLOSE_LONG: 'liquidation',
  FORCE_CLOSE_SHORT: 'liquidation',
  BURST_CLOSE_LONG: 'liquidation',
  BURST_CLOSE_SHORT: 'liquidation',
  FORCE_BUY_SSM: 'liquidation',
  FORCE_SELL_SSM: 'liquidation',
  BURST_BUY_SSM: 'liquidation',
  BURST_SELL_SSM: 'liquidation',
  RISK_LIQ_USER_IN: 'liquidation',
  RISK_LIQ_USER_OUT: 'liquidation',
  INTEREST_SETTLEMENT_OUT: 'other',
  CONTRACT_MAIN_SETTLE_FEE_USER_IN: 'funding',
  CONTRACT_MAIN_SETTLE_FEE_USER_OUT: 'funding',
};

/** The booking table as two parallel arrays, bound as SQL parameters (as spot's). */
export function futuresBookingArrays(): { types: string[]; categories: string[] } {
  const entries = Object.entries(FUTURES_BOOKINGS);
  return { types: entries.map(([type]) => type), categories: entries.map(([, category]) => category) };
}
