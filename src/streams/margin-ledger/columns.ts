import type { Columns, RecordOf } from '../kit/columns.ts';
import { MARGIN_TAX_TYPES } from './tax-types.ts';

/**
 * A margin finance record (docs/exchange-api.md §5.8), field by field: the one declaration of its
 * columns. `total` is the coin's balance in the margin account after the record, like spot's
 * `balance`: a running balance reconciliation chains. Every field that dates, signs, pairs or
 * classifies money is core, the symbol too: it names the isolated account a record moves.
 */
export const marginLedgerColumns = {
  id: { kind: 'id', column: 'record_id', pgType: 'text', core: true },
  // symbol before coin: the gains input trigger compares the columns in this order (the
  // 20261128064500_gains_wallet_ledgers migration, which gains-input-triggers.ts reproduces).
  symbol: { kind: 'optional-text', column: 'symbol', pgType: 'text', core: true },
  coin: { kind: 'id', column: 'coin', pgType: 'text', core: true },
  // Kept as text (the exact value); an unlisted one is flagged.
  marginTaxType: { kind: 'listed', column: 'margin_tax_type', pgType: 'text', core: true, values: MARGIN_TAX_TYPES },
  amount: { kind: 'decimal', column: 'amount', pgType: 'numeric', core: true },
  fee: { kind: 'decimal', column: 'fee', pgType: 'numeric', core: true },
  total: { kind: 'decimal', column: 'total', pgType: 'numeric', core: true },
  ts: { kind: 'unix-ms', column: 'ts', pgType: 'timestamptz', core: true },
} as const satisfies Columns;

export type MarginLedgerRecord = RecordOf<typeof marginLedgerColumns>;
