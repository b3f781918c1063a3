import type { SpotTaxType } from '../../exchange/spot-tax-types.ts';
import type { FUTURE_TAX_TYPES } from '../../streams/futures-ledger/tax-types.ts';
import type { MarginTaxType } from '../../streams/margin-ledger/tax-types.ts';
import type { P2pTaxType } from '../../streams/p2p-ledger/tax-types.ts';

/**
 * What a record does to the lots, pools and income, for every method (docs/reports.md, "Treatments",
 * a table generated from this module: treatment-docs.ts). One table keyed by ledger and tax type, so a
 * new ledger (margin, P2P) joins by adding its own section to LEDGERS, and its types to the docs.
 *
 * Kinds (the rule each follows is cited in TREATMENT_RULES):
 * - `trade-leg`      one side of a paired trade: a disposal of what was given, an acquisition of what was received.
 * - `trade-fee`      an incidental cost of a named trade (a fee in a third coin with the trade's order id):
 *                    that coin is disposed of at market value and the value is an allowable cost of the trade.
 *                    Not attached to a trade it is an `other-fee`.
 * - `other-fee`      a fee paying for no trade: a disposal at market value, no further allowable cost.
 * - `income`         income at market value on receipt (UK miscellaneous income; DE §22 Nr. 3 EStG);
 *                    the lot it creates costs that value. Going out: a disposal at market value.
 * - `rebate`         a part of a fee given back: the coins have no cost (nothing was given for them), which
 *                    over the coins' life is the fee reduced by the rebate. Going out: at market value.
 * - `own-move`       no change of owner (locks, earn, the user's own accounts, spot <-> futures): lots stay.
 * - `loan`           borrowing or repaying: acquisition / disposal at market value, flagged for review.
 * - `borrowing`      a margin loan taken or repaid inside the account: the borrowed coins are acquired at
 *                    market value (the borrower may deal with them as its own: beneficial ownership passes,
 *                    HMRC CRYPTO61620; a Sachdarlehen passes Eigentum, BGB §607), the repaid coins are
 *                    disposed of at market value (docs/reports.md, "Margin and P2P").
 * - `deposit`        coins from outside: cost unknown and no acquisition date until `cost-basis import`
 *                    supplies them; never invented.
 * - `withdrawal`     coins sent out, presumed still the owner's: their lots leave, nothing is realized; more
 *                    than held is flagged.
 * - `unknown-proceeds` a sale for fiat the record does not state (a P2P sell): a disposal whose proceeds
 *                    are left empty and flagged `review:unknown-proceeds`, never the market value.
 * - `market`         anything else changing ownership: acquisition or disposal at market value (adjustments,
 *                    refunds, expenses, futures results paid or received in the margin coin; a futures
 *                    result's fee is part of that result, so its coins are disposed of at market value too).
 */
export const TREATMENT_KINDS = [
  'trade-leg',
  'trade-fee',
  'other-fee',
  'income',
  'rebate',
  'own-move',
  'loan',
  'borrowing',
  'deposit',
  'withdrawal',
  'unknown-proceeds',
  'market',
] as const;
export type TreatmentKind = (typeof TREATMENT_KINDS)[number];

export const LEDGERS = ['spot', 'futures', 'margin', 'p2p'] as const;
export type Ledger = (typeof LEDGERS)[number];

export interface Treatment {
  readonly kind: TreatmentKind;
  /** What the record is, in a few words (shown in the docs' table). */
  readonly note?: string;
}

const t = (kind: TreatmentKind, note?: string): Treatment => (note === undefined ? { kind } : { kind, note });

const TRADE = t('trade-leg');
const OWN = t('own-move');
const FEE = t('other-fee');
const INCOME = t('income');
const MARKET = t('market');

const SPOT = {
  Deposit: t('deposit'),
  Withdrawal: t('withdrawal'),
  'User fees': FEE,
  'Fiat withdrawal success - Deduct': t('withdrawal'),
  Sell: TRADE,
  Buy: TRADE,
  'Transaction fee deduct': t('trade-fee', 'BGB paying a fill’s fee; alone: other fee'),
  'Strategic purchase-user accounts': t('other-fee', 'buying a copy-trading strategy'),
  'Subscribe to trader-user accounts': t('other-fee', 'a copy-trading subscription'),
  'System charges fees': FEE,
  'Strategic refund-User account': t('rebate', 'refund of a strategy purchase'),
  'Subscription fee refund-user account': t('rebate', 'refund of a subscription'),
  "Strategic Income-Traders' accounts": t('income', 'a trader’s share of copiers’ profit'),
  'Crypto Voucher Distribution': INCOME,
  'Copy Trade expense': t('other-fee', 'commission paid to the copied trader'),
  'Judicial recall': t('market', 'review: court order'),
  'Copy Trade profit': t('income', 'copy-trading profit; a negative one: a disposal at market value'),
  'Refund Copy Trade commission': t('rebate', 'refund of a copy-trading commission'),
  'Buy Crypto': TRADE,
  'Deduction of judicial recall': t('market', 'review: court order'),
  'Buy with card': t('deposit', 'the card payment is outside the ledger: cost from the statement'),
  'Airdrop Reward-B': INCOME,
  'Decrease due to ETF settlement': t('market', 'review: leveraged-token settlement'),
  'Increase due to ETF settlement': t('market', 'review: leveraged-token settlement'),
  'System lock-up': OWN,
  'User lock-up': OWN,
  'Trading fee rebate': t('rebate', 'part of trading fees given back'),
  'Manage background lock positions': OWN,
  'Automatic deposit': t('deposit'),
  'Automatic withdrawal': t('withdrawal'),
  'Deposit from strategy account': OWN,
  'Withdraw to strategy account': OWN,
  'Lotto rewards': INCOME,
  'User contract trial fund': t('income', 'review: income only once it is the user’s'),
  'User contract simulation fund': t('market', 'review: simulated funds'),
  Delegate: OWN,
  Undelegate: OWN,
  'Rebate rewards': t('income', 'referral rewards: income, not a fee rebate'),
  Consumption: t('market', 'coins spent on a purchase'),
  Gains: INCOME,
  'Unlock locked order': OWN,
  Deduction: t('loan'),
  Return: t('loan'),
  Release: OWN,
  Repayment: t('loan'),
  'Forced liquidation return': t('loan', 'review: what is left of a liquidation'),
  'The locked order is returned to the system': OWN,
  Failed: t('market', 'review: reversal of a failed operation'),
  'Withdrawal frozen': OWN,
  'Mirror fund': MARKET,
  'Supplement fund': MARKET,
  'Reduce fund': MARKET,
  'Settlement out': MARKET,
  'Withdrawal unfreeze': OWN,
  'Ordinary Withdrawal': t('withdrawal'),
  'Fast withdrawal fee': FEE,
  'Airdrop Reward-A': INCOME,
  Subscribe: OWN,
  Interest: t('income', 'interest received; interest paid: other fee'),
  Penalty: t('other-fee', 'a penalty paid'),
  Redemption: OWN,
  'Activity fund(USDT-Ⓜ)': INCOME,
  'Activity fund': INCOME,
  'Activity fund(Coin-Ⓜ)': INCOME,
  'Increase exchange rate': MARKET,
  'Reduce exchange rate': MARKET,
  'Transfer in': t('own-move', 'from the user’s futures, margin or P2P wallet'),
  'Activity issuance': INCOME,
  'Transfer out': t('own-move', 'to the user’s futures, margin or P2P wallet'),
  'Super account': OWN,
  'Exchange spending': TRADE,
  'Exchange income': TRADE,
  Sent: t('withdrawal'),
  Received: t('deposit'),
  'MegaSwap Transfer in': OWN,
  'MegaSwap Transfer out': OWN,
  'Channel referral rewards': INCOME,
  'System account': MARKET,
  'Sell Crypto': TRADE,
  'Fiat deposit': t('deposit'),
} satisfies Record<SpotTaxType, Treatment>;

const RESULT = t(
  'market',
  'futures result in the margin coin: paid = disposal (its fee’s coins too) at market value, received = acquisition',
);
const FUTURES = {
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
} satisfies Record<(typeof FUTURE_TAX_TYPES)[number], Treatment>;

/**
 * The margin account's records (docs/exchange-api.md §5.8). They carry no order id: a `deal_out` and
 * a `deal_in` of one margin account at one instant are one trade (src/booking/wallet-entries.ts).
 */
const MARGIN = {
  transfer_in: t(
    'own-move',
    'from the user’s spot wallet (paired with spot’s `Transfer out`): not a disposal (CRYPTO22100)',
  ),
  transfer_out: t(
    'own-move',
    'to the user’s spot wallet (paired with spot’s `Transfer in`): not a disposal (CRYPTO22100)',
  ),
  borrow: t(
    'borrowing',
    'a margin loan taken: the coins acquired at market value (CRYPTO61620 beneficial ownership; BGB §607 Sachdarlehen)',
  ),
  repay: t(
    'borrowing',
    'a margin loan repaid: the coins disposed of at market value (CRYPTO22100; EStG §23 (1) Nr. 2)',
  ),
  liquidation_fee: t('other-fee', 'a liquidation’s fee: pays no trade (CRYPTO22150, CRYPTO22280)'),
  compensate: t(
    'market',
    'review: coins the exchange paid in, reason not stated: an acquisition at market value (TCGA92 s17)',
  ),
  deal_in: t(
    'trade-leg',
    'a margin trade’s received side (CRYPTO22100 exchange of tokens; BMF 10.5.2022 Rn. 54, 58 Tausch)',
  ),
  deal_out: t(
    'trade-leg',
    'a margin trade’s given side (CRYPTO22100 exchange of tokens; BMF 10.5.2022 Rn. 54, 58 Tausch)',
  ),
  system_fee_in: t('income', 'a fee the exchange pays in, what for not stated: income at market value (CRYPTO21200)'),
  interest_repay: t('other-fee', 'interest paid on a margin loan: a disposal at market value (CRYPTO22150)'),
  confiscated: t(
    'market',
    'review: coins the exchange took, reason not stated: a disposal at market value (TCGA92 s17)',
  ),
  exchange_in: t('trade-leg', 'a conversion inside the margin account, received side (CRYPTO22100; BMF Rn. 58)'),
  exchange_out: t('trade-leg', 'a conversion inside the margin account, given side (CRYPTO22100; BMF Rn. 58)'),
} satisfies Record<MarginTaxType, Treatment>;

/** The P2P wallet's records (docs/exchange-api.md §5.9): no fiat amount in any of them. */
const P2P = {
  transfer_in: t(
    'own-move',
    'from the user’s spot wallet (paired with spot’s `Transfer out`): not a disposal (CRYPTO22100)',
  ),
  transfer_out: t(
    'own-move',
    'to the user’s spot wallet (paired with spot’s `Transfer in`): not a disposal (CRYPTO22100)',
  ),
  buy: t(
    'deposit',
    'bought for fiat the record does not state: cost unknown, never invented, until `cost-basis import` (TCGA92 s38(1)(a); BMF Rn. 54 Kauf)',
  ),
  sell: t(
    'unknown-proceeds',
    'sold for fiat the record does not state: proceeds unknown, never the market value (CRYPTO22100; BMF Rn. 54)',
  ),
} satisfies Record<P2pTaxType, Treatment>;

/** Every ledger's table. */
export const TREATMENTS: Readonly<Record<Ledger, Readonly<Record<string, Treatment>>>> = Object.freeze({
  spot: Object.freeze(SPOT),
  futures: Object.freeze(FUTURES),
  margin: Object.freeze(MARGIN),
  p2p: Object.freeze(P2P),
});

/**
 * A tax type no table knows: moved at market value (never dropped, never a cost invented), and the
 * entry is already flagged `spotTaxType=` / `futureTaxType=` by the ledger (ledger-entries.ts).
 */
export const UNMAPPED_TREATMENT: Treatment = t('market', 'a tax type the table does not know: flagged');

/** The table's treatment of a record of `ledger` with `taxType`; undefined for a type it does not list. */
export function listedTreatment(ledger: Ledger, taxType: string): Treatment | undefined {
  const table = TREATMENTS[ledger];
  return Object.hasOwn(table, taxType) ? table[taxType] : undefined;
}

/** The treatment of a record of `ledger` with `taxType`. */
export function treatmentOf(ledger: Ledger, taxType: string): Treatment {
  return listedTreatment(ledger, taxType) ?? UNMAPPED_TREATMENT;
}
