import type { Columns, RecordOf } from '../kit/columns.ts';
import { FUTURE_TAX_TYPES } from './tax-types.ts';

/**
 * A futures finance record (docs/exchange-api.md §5.6), field by field: the one declaration of its
 * columns. It carries no balance (unlike spot's): a wallet's balance is the sum of its records.
 * The symbol is empty for a record of no contract (a transfer): sent empty, null or left out it is
 * '', but it names the contract a record books to, so one sent garbled (a number) refuses the page.
 */
/** The futureTaxTypes of a position's own records (its open, funding and close): each books to its contract. */
export const FUTURE_POSITION_TYPES = [
  'OPEN_LONG',
  'OPEN_SHORT',
  'CLOSE_LONG',
  'CLOSE_SHORT',
  'FORCE_CLOSE_LONG',
  'FORCE_CLOSE_SHORT',
  'BURST_CLOSE_LONG',
  'BURST_CLOSE_SHORT',
  'OFFSET_REDUCE_CLOSE_LONG',
  'OFFSET_REDUCE_CLOSE_SHORT',
  'CONTRACT_MAIN_SETTLE_FEE_USER_IN',
  'CONTRACT_MAIN_SETTLE_FEE_USER_OUT',
];

export const futuresLedgerColumns = {
  id: { kind: 'id', column: 'record_id', pgType: 'text', core: true },
  symbol: {
    kind: 'optional-text',
    column: 'symbol',
    pgType: 'text',
    core: true,
    requiredFor: {
      type: 'futureTaxType',
      values: FUTURE_POSITION_TYPES,
      because: 'a position record without its contract cannot be tied to its position nor booked to it',
    },
  },
  marginCoin: { kind: 'id', column: 'margin_coin', pgType: 'text', core: true },
  // Kept as text (the exact value); an unlisted one is flagged.
  futureTaxType: { kind: 'listed', column: 'future_tax_type', pgType: 'text', core: true, values: FUTURE_TAX_TYPES },
  amount: { kind: 'decimal', column: 'amount', pgType: 'numeric', core: true },
  fee: { kind: 'decimal', column: 'fee', pgType: 'numeric', core: true },
  ts: { kind: 'unix-ms', column: 'ts', pgType: 'timestamptz', core: true },
} as const satisfies Columns;

export type FuturesLedgerRecord = RecordOf<typeof futuresLedgerColumns>;
