/** Every p2pTaxType the exchange's documentation lists for p2p-record (docs/exchange-api.md §5.9). */
export const P2P_TAX_TYPES = ['transfer_in', 'transfer_out', 'sell', 'buy'] as const;

export type P2pTaxType = (typeof P2P_TAX_TYPES)[number];

/**
 * Each p2pTaxType's category, as the p2p-ledger report shows it; the tax treatment per method is
 * the project's treatment table (src/accounting/treatments/treatment-table.ts), which a test holds
 * to these categories. A `buy` is an acquisition whose cost the record does not give (no fiat
 * amount): `unknown-cost-acquisition`, flagged, never invented (`ledgerline cost-basis import`
 * supplies it); a `sell` a disposal for fiat the record does not give either.
 */
export type P2pTreatment = 'own-move' | 'unknown-cost-acquisition' | 'unknown-proceeds-disposal';

export const P2P_TAX_TREATMENT: Readonly<Record<P2pTaxType, P2pTreatment>> = {
  transfer_in: 'own-move',
  transfer_out: 'own-move',
  buy: 'unknown-cost-acquisition',
  sell: 'unknown-proceeds-disposal',
};

/**
 * SQL: a P2P record's signed change to its wallet. `total` is the record's quantity, unsigned
 * (docs/exchange-api.md §5.9): a buy or a transfer in adds it, a sell or a transfer out takes
 * it; an unlisted type moves nothing (it is flagged).
 */
export const P2P_CHANGE_SQL =
  "CASE p2p_tax_type WHEN 'buy' THEN total WHEN 'transfer_in' THEN total " +
  "WHEN 'sell' THEN -total WHEN 'transfer_out' THEN -total ELSE 0 END";
