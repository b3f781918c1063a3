import type { SpotTaxType } from '../exchange/spot-tax-types.ts';
import { type AccountingCategory, UNMAPPED_CATEGORY } from './categories.ts';

/**
 * How each spotTaxType value (docs/exchange-api.md §8.4) is booked: its accounting category, whether
 * the tax-tool files leave it out, and whether an accountant should confirm it. A test parses that
 * documented list and checks this table has exactly those keys, so a value added to the list cannot
 * silently fall through. A value the exchange sends that is not here is booked as `unmapped` and
 * counted in every export's manifest: never dropped.
 *
 * What a tax tool calls a booking (Koinly's labels, CoinTracking's types) is the dialect's own
 * table (src/export/reports/koinly.ts, cointracking.ts), keyed by these categories.
 * Records of category `trade` sharing a bizOrderId are one order, paired into trade rows
 * (trade-orders.ts); a `trade` record that cannot be paired is flagged, never silently a deposit.
 */

export interface SpotTaxTypeMapping {
  readonly category: AccountingCategory;
  /** Left out of the tax-tool files (counted in their manifest): see FUTURES_TRANSFER. */
  readonly omitFromTaxTools?: true;
  /** Why the booking is a guess an accountant should confirm; flagged per row in the manifest. */
  readonly review?: string;
}

function book(category: AccountingCategory): SpotTaxTypeMapping {
  return { category };
}

// Shared bookings. Movements that do not change ownership (locks, earn, the user's own other
// accounts) are the categories lock, earn and internal-transfer.
const PLAIN = book;
const FEE = book;
const POOL = book;
const REWARD = book('income');
const AIRDROP = book('income');
const REBATE = book('rebate');
const REFUND = book('refund');
const EXPENSE = book('expense');

// Moves between the spot account and the user's futures account: no change of ownership. The
// tax-tool files hold the futures wallet too (its ledger: futures-entries.ts), so each move is a
// withdrawal on one wallet and a deposit on the other, which the tools match as a transfer between
// the user's own wallets (docs/reports.md, "Two wallets").
const FUTURES_TRANSFER: SpotTaxTypeMapping = PLAIN('internal-transfer');

/** A booking the spec's one-line name does not settle: exported as booked, counted for review. */
const REVIEW = (mapping: SpotTaxTypeMapping, reason: string): SpotTaxTypeMapping => ({ ...mapping, review: reason });

// `satisfies` makes the compiler check that every value the spec lists has a booking.
const BOOKINGS = {
  Deposit: PLAIN('deposit'),
  Withdrawal: PLAIN('withdrawal'),
  'User fees': FEE('fee'),
  'Fiat withdrawal success - Deduct': PLAIN('withdrawal'),
  Sell: PLAIN('trade'),
  Buy: PLAIN('trade'),
  'Transaction fee deduct': FEE('fee'),
  'Strategic purchase-user accounts': FEE('copy-trading'),
  'Subscribe to trader-user accounts': FEE('copy-trading'),
  'System charges fees': FEE('fee'),
  'Strategic refund-User account': REFUND,
  'Subscription fee refund-user account': REFUND,
  "Strategic Income-Traders' accounts": book('copy-trading'),
  'Crypto Voucher Distribution': REWARD,
  'Copy Trade expense': FEE('copy-trading'),
  'Judicial recall': REVIEW(
    PLAIN('adjustment'),
    'coins taken or returned by court order: a disposal, a loss or no event depends on the case',
  ),
  'Copy Trade profit': REVIEW(
    book('copy-trading'),
    'a negative copy-trade profit is booked as a cost; it may be a realized loss of the copied trades',
  ),
  'Refund Copy Trade commission': REFUND,
  'Buy Crypto': PLAIN('trade'),
  'Deduction of judicial recall': REVIEW(
    PLAIN('adjustment'),
    'coins taken by court order: a disposal, a loss or no event depends on the case',
  ),
  // A card purchase has one record: the card payment is not in the exchange's ledger, so there is
  // no second leg to pair. An acquisition whose cost the accountant takes from the card statement.
  'Buy with card': PLAIN('deposit'),
  'Airdrop Reward-B': AIRDROP,
  'Decrease due to ETF settlement': REVIEW(
    PLAIN('adjustment'),
    'a leveraged-token settlement: booked as a disposal at market value; CoinTracking sees a non-taxable withdrawal',
  ),
  'Increase due to ETF settlement': REVIEW(
    PLAIN('adjustment'),
    'a leveraged-token settlement: booked as an acquisition at market value',
  ),
  'System lock-up': POOL('lock'),
  'User lock-up': POOL('lock'),
  'Trading fee rebate': REBATE,
  'Manage background lock positions': POOL('lock'),
  'Automatic deposit': PLAIN('deposit'),
  'Automatic withdrawal': PLAIN('withdrawal'),
  'Deposit from strategy account': POOL('internal-transfer'),
  'Withdraw to strategy account': POOL('internal-transfer'),
  'Lotto rewards': REWARD,
  'User contract trial fund': REVIEW(
    REWARD,
    'trial money for futures, often not withdrawable: income only if and when it becomes the user’s',
  ),
  'User contract simulation fund': REVIEW(
    PLAIN('adjustment'),
    'simulated funds, not the user’s money: most accountants leave them out',
  ),
  Delegate: POOL('earn'),
  Undelegate: POOL('earn'),
  'Rebate rewards': REBATE,
  Consumption: EXPENSE,
  Gains: book('income'),
  'Unlock locked order': POOL('lock'),
  Deduction: PLAIN('loan'),
  Return: PLAIN('loan'),
  Release: POOL('lock'),
  Repayment: PLAIN('loan'),
  'Forced liquidation return': REVIEW(
    PLAIN('loan'),
    'what is left of a liquidated loan or margin position: the loss belongs to the liquidation',
  ),
  'The locked order is returned to the system': POOL('lock'),
  Failed: REVIEW(PLAIN('adjustment'), 'the reversal of a failed operation: should cancel out its original record'),
  'Withdrawal frozen': POOL('lock'),
  'Mirror fund': PLAIN('adjustment'),
  'Supplement fund': PLAIN('adjustment'),
  'Reduce fund': PLAIN('adjustment'),
  'Settlement out': PLAIN('adjustment'),
  'Withdrawal unfreeze': POOL('lock'),
  'Ordinary Withdrawal': PLAIN('withdrawal'),
  'Fast withdrawal fee': FEE('fee'),
  'Airdrop Reward-A': AIRDROP,
  Subscribe: POOL('earn'),
  Interest: book('income'),
  Penalty: EXPENSE,
  Redemption: POOL('earn'),
  'Activity fund(USDT-Ⓜ)': REWARD,
  'Activity fund': REWARD,
  'Activity fund(Coin-Ⓜ)': REWARD,
  'Increase exchange rate': PLAIN('adjustment'),
  'Reduce exchange rate': PLAIN('adjustment'),
  'Transfer in': FUTURES_TRANSFER,
  'Activity issuance': REWARD,
  'Transfer out': FUTURES_TRANSFER,
  'Super account': POOL('internal-transfer'),
  'Exchange spending': PLAIN('trade'),
  'Exchange income': PLAIN('trade'),
  Sent: PLAIN('withdrawal'),
  Received: PLAIN('deposit'),
  'MegaSwap Transfer in': POOL('internal-transfer'),
  'MegaSwap Transfer out': POOL('internal-transfer'),
  'Channel referral rewards': REWARD,
  'System account': PLAIN('adjustment'),
  'Sell Crypto': PLAIN('trade'),
  'Fiat deposit': PLAIN('deposit'),
} satisfies Record<SpotTaxType, SpotTaxTypeMapping>;

export const SPOT_TAX_TYPES: Readonly<Record<string, SpotTaxTypeMapping>> = Object.freeze(BOOKINGS);

/** The booking of a spotTaxType; an unknown one is `unmapped` with plain labels. */
export function bookingOf(spotTaxType: string): SpotTaxTypeMapping {
  return Object.hasOwn(SPOT_TAX_TYPES, spotTaxType) ? SPOT_TAX_TYPES[spotTaxType]! : book(UNMAPPED_CATEGORY);
}

/**
 * The table as parallel arrays, bound as SQL parameters and joined with unnest(), so that the
 * category travels inside the streamed query instead of being looked up per row in JavaScript.
 */
export function bookingArrays(): {
  types: string[];
  categories: string[];
  omitted: boolean[];
  review: boolean[];
} {
  const entries = Object.entries(SPOT_TAX_TYPES);
  return {
    types: entries.map(([type]) => type),
    categories: entries.map(([, m]) => m.category),
    omitted: entries.map(([, m]) => m.omitFromTaxTools === true),
    review: entries.map(([, m]) => m.review !== undefined),
  };
}
