import type { Columns, RecordOf } from '../kit/columns.ts';
import { FUTURE_TAX_TYPES } from './tax-types.ts';

/**
 * A futures finance record (docs/exchange-api.md §5.6), field by field: the one declaration of its
 * columns. It carries no balance (unlike spot's): a wallet's balance is the sum of its records.
 * The symbol is empty for a record of no contract (a transfer): sent empty, null or left out it is
 * '', but it names the contract a record books to, so one sent garbled (a number) refuses the page.
 */
export const futuresLedgerColumns = {
  id: { kind: 'id', column: 'record_id', pgType: 'text', core: true },
  symbol: { kind: 'optional-text', column: 'symbol', pgType: 'text', core: true },
  marginCoin: { kind: 'id', column: 'margin_coin', pgType: 'text', core: true },
  // Kept as text (the exact value); an unlisted one is flagged.
  futureTaxType: { kind: 'listed', column: 'future_tax_type', pgType: 'text', core: true, values: FUTURE_TAX_TYPES },
  amount: { kind: 'decimal', column: 'amount', pgType: 'numeric', core: true },
  fee: { kind: 'decimal', column: 'fee', pgType: 'numeric', core: true },
  ts: { kind: 'unix-ms', column: 'ts', pgType: 'timestamptz', core: true },
} as const satisfies Columns;

export type FuturesLedgerRecord = RecordOf<typeof futuresLedgerColumns>;
