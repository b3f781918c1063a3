import { reviewed, type Treatment, treatment as t } from '../kit/treatments.ts';

/** Every p2pTaxType the exchange's documentation lists for p2p-record (docs/exchange-api.md §5.9). */
export const P2P_TAX_TYPES = ['transfer_in', 'transfer_out', 'sell', 'buy'] as const;

export type P2pTaxType = (typeof P2P_TAX_TYPES)[number];

/** The P2P wallet's records (docs/exchange-api.md §5.9): no fiat amount in any of them. */
export const P2P_TREATMENTS = {
  transfer_in: t(
    'own-move',
    'from the user’s spot wallet (paired with spot’s `Transfer out`): not a disposal (CRYPTO22100)',
  ),
  transfer_out: t(
    'own-move',
    'to the user’s spot wallet (paired with spot’s `Transfer in`): not a disposal (CRYPTO22100)',
  ),
  buy: reviewed(
    'deposit',
    'bought for fiat the record does not state: cost unknown, never invented, until `cost-basis import` (TCGA92 s38(1)(a); BMF Rn. 54 Kauf)',
  ),
  sell: reviewed(
    'unknown-proceeds',
    'sold for fiat the record does not state: proceeds unknown, never the market value (CRYPTO22100; BMF Rn. 54)',
  ),
} satisfies Record<P2pTaxType, Treatment>;

/**
 * SQL: a P2P record's signed change to its wallet. `total` is the record's quantity, unsigned
 * (docs/exchange-api.md §5.9): a buy or a transfer in adds it, a sell or a transfer out takes
 * it; an unlisted type moves nothing (it is flagged).
 */
export const P2P_CHANGE_SQL =
  "CASE p2p_tax_type WHEN 'buy' THEN total WHEN 'transfer_in' THEN total " +
  "WHEN 'sell' THEN -total WHEN 'transfer_out' THEN -total ELSE 0 END";
