import { SPOT_TAX_TYPES } from '../../exchange/spot-tax-types.ts';
import type { Columns, RecordOf } from '../kit/columns.ts';

/**
 * The spotTaxTypes of a trade's legs (the booking's `trade` category, src/booking/spot-bookings.ts;
 * a test holds the two lists together): the legs of one order are paired by their bizOrderId.
 */
export const SPOT_TRADE_LEG_TYPES = [
  'Buy',
  'Sell',
  'Buy Crypto',
  'Sell Crypto',
  'Exchange spending',
  'Exchange income',
];

/** A spot finance record (docs/exchange-api.md §5.4), field by field: the one declaration of its columns. */
export const spotColumns = {
  id: { kind: 'id', column: 'record_id', pgType: 'text', core: true },
  coin: { kind: 'id', column: 'coin', pgType: 'text', core: true },
  // Kept as text (the exact value); an unlisted one is flagged.
  spotTaxType: { kind: 'listed', column: 'spot_tax_type', pgType: 'text', core: true, values: SPOT_TAX_TYPES },
  amount: { kind: 'decimal', column: 'amount', pgType: 'numeric', core: true },
  fee: { kind: 'decimal', column: 'fee', pgType: 'numeric', core: true },
  balance: { kind: 'decimal', column: 'balance', pgType: 'numeric', core: true },
  // Pairs a trade's legs (and a third-coin fee with its order): core, so one sent garbled (a number)
  // refuses the page instead of being stored as "no order" ('' stays the exchange's own "no order"
  // on other records); a trade leg without one refuses the page too: it could not be paired.
  bizOrderId: {
    kind: 'optional-text',
    column: 'biz_order_id',
    pgType: 'text',
    core: true,
    requiredFor: {
      type: 'spotTaxType',
      values: SPOT_TRADE_LEG_TYPES,
      because: "a trade leg without its order id cannot be paired with the order's other leg",
    },
  },
  ts: { kind: 'unix-ms', column: 'ts', pgType: 'timestamptz', core: true },
} as const satisfies Columns;

export type SpotLedgerRecord = RecordOf<typeof spotColumns>;
