import type { AccountingCategory } from '../../booking/categories.ts';
import { accountComponent } from './beancount-names.ts';

/**
 * The journal's chart of accounts (docs/reports.md, "beancount"): where the other side of a spot
 * record is booked. The spot wallet is one account per coin, so each can carry the exchange's
 * balance as an assertion; the counter-accounts hold any currency.
 */
export const SPOT_ROOT = 'Assets:Exchange:Spot';
export const OPENING_BALANCES = 'Equity:Opening-Balances';
/** A trade leg booked alone: it does not pair, or its order's other legs lie in another period. */
export const TRADE_LEGS = 'Equity:Exchange:Trade-Legs';

export function spotAccount(currency: string): string {
  return `${SPOT_ROOT}:${accountComponent(currency)}`;
}

/** Fees the exchange charges besides the amount (a record's fee field), one account per coin. */
export function feeAccount(currency: string): string {
  return `Expenses:Exchange:Fees:${accountComponent(currency)}`;
}

const AIRDROPS = new Set(['Airdrop Reward-A', 'Airdrop Reward-B']);
const FUTURES = new Set(['Transfer in', 'Transfer out']);

/**
 * The counter-account of a record of this category and spotTaxType moving coins in (`incoming`)
 * or out. Trades that pair are booked spot against spot and do not come here.
 */
export function counterAccount(
  category: AccountingCategory,
  spotTaxType: string,
  currency: string,
  incoming: boolean,
): string {
  switch (category) {
    case 'deposit':
    case 'withdrawal':
      return 'Equity:External';
    case 'trade':
      return TRADE_LEGS;
    case 'fee':
      return feeAccount(currency);
    case 'rebate':
      return 'Income:Exchange:Rebates';
    case 'refund':
      return 'Income:Exchange:Refunds';
    case 'income':
      if (spotTaxType === 'Interest') return incoming ? 'Income:Exchange:Interest' : 'Expenses:Exchange:Interest';
      if (AIRDROPS.has(spotTaxType)) return 'Income:Exchange:Airdrops';
      if (spotTaxType === 'Gains') return 'Income:Exchange:Other';
      return 'Income:Exchange:Rewards';
    case 'expense':
      return 'Expenses:Exchange:Other';
    case 'copy-trading':
      return incoming ? 'Income:Exchange:Copy-Trading' : 'Expenses:Exchange:Copy-Trading';
    case 'internal-transfer':
      return FUTURES.has(spotTaxType) ? 'Assets:Exchange:Futures' : 'Assets:Exchange:Other-Accounts';
    case 'lock':
      return 'Assets:Exchange:Locked';
    case 'earn':
      return 'Assets:Exchange:Earn';
    case 'loan':
      return 'Liabilities:Exchange:Loans';
    case 'adjustment':
      return 'Equity:Exchange:Adjustments';
    case 'unmapped':
      return 'Equity:Exchange:Unmapped';
  }
}
