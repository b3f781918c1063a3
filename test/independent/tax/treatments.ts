/**
 * docs/reports.md's treatment table, copied by hand from the document (not imported from src/):
 * what each ledger's tax type does in a gains walk.
 */
export type Treatment =
  | 'trade-leg'
  | 'trade-fee'
  | 'other-fee'
  | 'income'
  | 'rebate'
  | 'own-move'
  | 'loan'
  | 'borrowing'
  | 'deposit'
  | 'withdrawal'
  | 'unknown-proceeds'
  | 'market';

const SPOT_GROUPS: Record<Treatment, string[]> = {
  'trade-leg': ['Sell', 'Buy', 'Buy Crypto', 'Sell Crypto', 'Exchange spending', 'Exchange income'],
  'trade-fee': ['Transaction fee deduct'],
  'other-fee': [
    'User fees',
    'Strategic purchase-user accounts',
    'Subscribe to trader-user accounts',
    'System charges fees',
    'Copy Trade expense',
    'Fast withdrawal fee',
    'Penalty',
  ],
  income: [
    "Strategic Income-Traders' accounts",
    'Crypto Voucher Distribution',
    'Copy Trade profit',
    'Airdrop Reward-B',
    'Lotto rewards',
    'User contract trial fund',
    'Rebate rewards',
    'Gains',
    'Airdrop Reward-A',
    'Interest',
    'Activity fund(USDT-Ⓜ)',
    'Activity fund',
    'Activity fund(Coin-Ⓜ)',
    'Activity issuance',
    'Channel referral rewards',
  ],
  rebate: [
    'Strategic refund-User account',
    'Subscription fee refund-user account',
    'Refund Copy Trade commission',
    'Trading fee rebate',
  ],
  'own-move': [
    'System lock-up',
    'User lock-up',
    'Manage background lock positions',
    'Deposit from strategy account',
    'Withdraw to strategy account',
    'Delegate',
    'Undelegate',
    'Unlock locked order',
    'Release',
    'The locked order is returned to the system',
    'Withdrawal frozen',
    'Withdrawal unfreeze',
    'Subscribe',
    'Redemption',
    'Transfer in',
    'Transfer out',
    'Super account',
    'MegaSwap Transfer in',
    'MegaSwap Transfer out',
  ],
  loan: ['Deduction', 'Return', 'Repayment', 'Forced liquidation return'],
  borrowing: [],
  deposit: ['Deposit', 'Buy with card', 'Automatic deposit', 'Received', 'Fiat deposit'],
  withdrawal: ['Withdrawal', 'Fiat withdrawal success - Deduct', 'Automatic withdrawal', 'Ordinary Withdrawal', 'Sent'],
  'unknown-proceeds': [],
  market: [
    'Judicial recall',
    'Deduction of judicial recall',
    'Decrease due to ETF settlement',
    'Increase due to ETF settlement',
    'User contract simulation fund',
    'Consumption',
    'Failed',
    'Mirror fund',
    'Supplement fund',
    'Reduce fund',
    'Settlement out',
    'Increase exchange rate',
    'Reduce exchange rate',
    'System account',
  ],
};

const SPOT = new Map<string, Treatment>();
for (const [t, types] of Object.entries(SPOT_GROUPS)) for (const type of types) SPOT.set(type, t as Treatment);

const MARGIN: Record<string, Treatment> = {
  transfer_in: 'own-move',
  transfer_out: 'own-move',
  borrow: 'borrowing',
  repay: 'borrowing',
  liquidation_fee: 'other-fee',
  compensate: 'market',
  deal_in: 'trade-leg',
  deal_out: 'trade-leg',
  system_fee_in: 'income',
  interest_repay: 'other-fee',
  confiscated: 'market',
  exchange_in: 'trade-leg',
  exchange_out: 'trade-leg',
};

const P2P: Record<string, Treatment> = {
  transfer_in: 'own-move',
  transfer_out: 'own-move',
  buy: 'deposit',
  sell: 'unknown-proceeds',
};

const FUTURES_FEES = new Set(['ORDER_PLF_FEE_OUT', 'OPEN_LONG', 'OPEN_SHORT', 'INTEREST_SETTLEMENT_OUT']);

/** The spot own moves that hold coins away (locks, earn, strategy), not the wallet transfers. */
export function holdsAway(spotType: string): boolean {
  return SPOT.get(spotType) === 'own-move' && !/^Transfer (in|out)$/.test(spotType);
}

/** The table's treatment; a type it does not list: market value (as the table's heading says). */
export function treatmentOf(ledger: 'spot' | 'futures' | 'margin' | 'p2p', type: string): Treatment {
  if (ledger === 'spot') return SPOT.get(type) ?? 'market';
  if (ledger === 'margin') return MARGIN[type] ?? 'market';
  if (ledger === 'p2p') return P2P[type] ?? 'market';
  if (type === 'TRANSFER_IN' || type === 'TRANSFER_OUT') return 'own-move';
  return FUTURES_FEES.has(type) ? 'other-fee' : 'market';
}
