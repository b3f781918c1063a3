import { reviewed, type Treatment, treatment as t } from '../kit/treatments.ts';

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
 * The margin account's records (docs/exchange-api.md §5.8). They carry no order id: a `deal_out` and
 * a `deal_in` of one margin account at one instant are one trade (src/booking/wallet-entries.ts).
 */
export const MARGIN_TREATMENTS = {
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
  compensate: reviewed(
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
  confiscated: reviewed(
    'market',
    'review: coins the exchange took, reason not stated: a disposal at market value (TCGA92 s17)',
  ),
  exchange_in: t('trade-leg', 'a conversion inside the margin account, received side (CRYPTO22100; BMF Rn. 58)'),
  exchange_out: t('trade-leg', 'a conversion inside the margin account, given side (CRYPTO22100; BMF Rn. 58)'),
} satisfies Record<MarginTaxType, Treatment>;
