import type { Columns, RecordOf } from '../kit/columns.ts';
import { P2P_TAX_TYPES } from './tax-types.ts';

/**
 * A P2P finance record (docs/exchange-api.md §5.9), field by field. `total` is the record's
 * quantity as received (the documentation calls it "Total accounts"; its only sample reads as
 * the quantity), unsigned: its type says which way it moves. Every field is core.
 */
export const p2pLedgerColumns = {
  id: { kind: 'id', column: 'record_id', pgType: 'text', core: true },
  coin: { kind: 'id', column: 'coin', pgType: 'text', core: true },
  // Kept as text (the exact value); an unlisted one is flagged.
  p2pTaxType: { kind: 'listed', column: 'p2p_tax_type', pgType: 'text', core: true, values: P2P_TAX_TYPES },
  // One copy of the documentation's sample names it `balance`: read under either name.
  total: { kind: 'decimal', aliases: ['balance'], column: 'total', pgType: 'numeric', core: true },
  ts: { kind: 'unix-ms', column: 'ts', pgType: 'timestamptz', core: true },
} as const satisfies Columns;

export type P2pLedgerRecord = RecordOf<typeof p2pLedgerColumns>;
