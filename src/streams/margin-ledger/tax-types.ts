/**
 * Every marginTaxType the exchange's documentation lists for margin-record (docs/exchange-api.md
 * §5.8), in its order. Stored as text; a value outside this list is kept as sent and flagged.
 */
export const MARGIN_TAX_TYPES = [
  'transfer_in',
  'transfer_out',
  'borrow',
  'repay',
  'liquidation_fee',
  'compensate',
  'deal_in',
  'deal_out',
  'system_fee_in',
  'interest_repay',
  'confiscated',
  'exchange_in',
  'exchange_out',
] as const;

export type MarginTaxType = (typeof MARGIN_TAX_TYPES)[number];

/**
 * Each marginTaxType's category, as the margin-ledger report shows it. The tax treatment per
 * method is the project's treatment table (src/accounting/treatments/treatment-table.ts,
 * docs/reports.md "Treatments"), which a test holds to these categories. `trade-leg`: one side of
 * a margin buy or sell (a disposal and an acquisition); `loan`: money borrowed or paid back, no
 * tax event; `incidental-cost`: a cost of the margin trading (interest, a liquidation's fee);
 * `own-move`: a transfer between the account's own wallets (paired with spot); `review`: the
 * exchange took or gave money for reasons the record does not state (confiscated, compensate),
 * flagged for a person to classify.
 */
export type MarginTreatment = 'trade-leg' | 'loan' | 'incidental-cost' | 'own-move' | 'income' | 'review';

export const MARGIN_TAX_TREATMENT: Readonly<Record<MarginTaxType, MarginTreatment>> = {
  transfer_in: 'own-move',
  transfer_out: 'own-move',
  borrow: 'loan',
  repay: 'loan',
  liquidation_fee: 'incidental-cost',
  compensate: 'review',
  deal_in: 'trade-leg',
  deal_out: 'trade-leg',
  // A fee the system pays into the account (a rebate of margin fees): income.
  system_fee_in: 'income',
  interest_repay: 'incidental-cost',
  confiscated: 'review',
  // Coin conversions inside the margin account: both sides of a swap, like a trade.
  exchange_in: 'trade-leg',
  exchange_out: 'trade-leg',
};
