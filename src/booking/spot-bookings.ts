import type { SpotTaxType } from '../exchange/spot-tax-types.ts';

/**
 * How each spotTaxType value (docs/exchange-api.md §8.4) is booked. A test parses that documented
 * list and checks this table has exactly those keys, so a value added to the list cannot silently
 * fall through. A value the exchange sends that is not here is booked as
 * `unmapped` and counted in every export's manifest: never dropped.
 *
 * Labels depend on the direction of the record (amount > 0 = in, < 0 = out). Koinly's label '' is a
 * plain deposit/withdrawal; CoinTracking has no blank type, its plain ones are Deposit/Withdrawal.
 * Records of category `trade` sharing a bizOrderId are one order, paired into trade rows in both formats
 * (reports/ledger-entries.ts); a `trade` record that cannot be paired is flagged, never silently a deposit.
 */

export const ACCOUNTING_CATEGORIES = [
  'deposit',
  'withdrawal',
  'trade',
  'fee',
  'rebate',
  'refund',
  'income',
  'expense',
  'copy-trading',
  'internal-transfer',
  'lock',
  'earn',
  'loan',
  'adjustment',
  'unmapped',
] as const;
export type AccountingCategory = (typeof ACCOUNTING_CATEGORIES)[number];

/** The category of a spotTaxType that is not in the table. */
export const UNMAPPED_CATEGORY: AccountingCategory = 'unmapped';

/**
 * Koinly tags, spelled as Koinly's tag list spells them ('' = none: a plain deposit is an
 * acquisition, a plain withdrawal a disposal). `Add to Pool` / `Remove from Pool` mark coins set
 * aside and returned (locks, earn, the user's other accounts): no disposal, the cost basis kept.
 * The futures results use `realized gain`, the CSV spelling Koinly's futures article gives.
 */
export type KoinlyLabel =
  | ''
  | 'Airdrop'
  | 'Reward'
  | 'Income'
  | 'Lending interest'
  | 'Fee refund'
  | 'Cashback'
  | 'Remove from Pool'
  | 'Cost'
  | 'Loan fee'
  | 'Add to Pool';

/** CoinTracking transaction types used here. */
export type CoinTrackingType =
  | 'Deposit'
  | 'Withdrawal'
  | 'Income'
  | 'Income (non taxable)'
  | 'Reward / Bonus'
  | 'Airdrop'
  | 'Interest Income'
  | 'Other Income'
  | 'Other Fee'
  | 'Other Expense'
  | 'Borrowing Fee'
  | 'Spend';

export interface SpotTaxTypeMapping {
  readonly category: AccountingCategory;
  readonly koinly: { readonly in: KoinlyLabel; readonly out: KoinlyLabel };
  readonly coinTracking: { readonly in: CoinTrackingType; readonly out: CoinTrackingType };
  /** Left out of the tax-tool files (counted in their manifest): see FUTURES_TRANSFER. */
  readonly omitFromTaxTools?: true;
  /** Why the booking is a guess an accountant should confirm; flagged per row in the manifest. */
  readonly review?: string;
}

function book(
  category: AccountingCategory,
  koinly: [KoinlyLabel, KoinlyLabel] = ['', ''],
  coinTracking: [CoinTrackingType, CoinTrackingType] = ['Deposit', 'Withdrawal'],
): SpotTaxTypeMapping {
  return {
    category,
    koinly: { in: koinly[0], out: koinly[1] },
    coinTracking: { in: coinTracking[0], out: coinTracking[1] },
  };
}

// Shared bookings. Movements that do not change ownership (locks, earn, the user's own other
// accounts) are Koinly pool moves (POOL); CoinTracking's Deposit/Withdrawal are not taxable already.
const PLAIN = (category: AccountingCategory) => book(category);
const FEE = (category: AccountingCategory) => book(category, ['', 'Cost'], ['Deposit', 'Other Fee']);
const REWARD = book('income', ['Reward', ''], ['Reward / Bonus', 'Withdrawal']);
const AIRDROP = book('income', ['Airdrop', ''], ['Airdrop', 'Withdrawal']);
const REBATE = book('rebate', ['Cashback', ''], ['Reward / Bonus', 'Withdrawal']);
const REFUND = book('refund', ['Fee refund', ''], ['Income (non taxable)', 'Withdrawal']);
const EXPENSE = book('expense', ['', 'Cost'], ['Deposit', 'Other Expense']);
// Coins set aside and returned, still the user's: Koinly's pool tags (no disposal, basis kept).
const POOL = (category: AccountingCategory) => book(category, ['Remove from Pool', 'Add to Pool']);

// Moves between the spot account and the user's futures account. The tax-tool files carry the
// futures results as realized profit/loss rows in the margin coin, which treats the futures account
// as part of the same wallet; the moves themselves change no ownership and, booked as well, would
// count the same funds twice (and Koinly would take the way out as a disposal). Left out, counted.
const FUTURES_TRANSFER: SpotTaxTypeMapping = { ...PLAIN('internal-transfer'), omitFromTaxTools: true };

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
  "Strategic Income-Traders' accounts": book('copy-trading', ['Income', ''], ['Income', 'Withdrawal']),
  'Crypto Voucher Distribution': REWARD,
  'Copy Trade expense': FEE('copy-trading'),
  'Judicial recall': REVIEW(
    PLAIN('adjustment'),
    'coins taken or returned by court order: a disposal, a loss or no event depends on the case',
  ),
  'Copy Trade profit': REVIEW(
    book('copy-trading', ['Income', 'Cost'], ['Income', 'Other Fee']),
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
  'Trading fee rebate': book('rebate', ['Fee refund', ''], ['Reward / Bonus', 'Withdrawal']),
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
  Consumption: book('expense', ['', 'Cost'], ['Deposit', 'Spend']),
  Gains: book('income', ['Income', ''], ['Other Income', 'Withdrawal']),
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
  Interest: book('income', ['Lending interest', 'Loan fee'], ['Interest Income', 'Borrowing Fee']),
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
  koinlyIn: string[];
  koinlyOut: string[];
  coinTrackingIn: string[];
  coinTrackingOut: string[];
  omitted: boolean[];
  review: boolean[];
} {
  const entries = Object.entries(SPOT_TAX_TYPES);
  return {
    types: entries.map(([type]) => type),
    categories: entries.map(([, m]) => m.category),
    koinlyIn: entries.map(([, m]) => m.koinly.in),
    koinlyOut: entries.map(([, m]) => m.koinly.out),
    coinTrackingIn: entries.map(([, m]) => m.coinTracking.in),
    coinTrackingOut: entries.map(([, m]) => m.coinTracking.out),
    omitted: entries.map(([, m]) => m.omitFromTaxTools === true),
    review: entries.map(([, m]) => m.review !== undefined),
  };
}
