import { declareLedger } from '../kit/ledger-declaration.ts';
import { idLessThanPaging } from '../kit/paging-strategy.ts';
import { marginLedgerColumns } from './columns.ts';
import { MARGIN_TYPES, marginRecordEndpoint } from './endpoint.ts';
import { MARGIN_TREATMENTS } from './tax-types.ts';

/**
 * The margin account's finance records (docs/exchange-api.md §5.8): windowed by ts on a 30-day
 * grid, paged by idLessThan, read once per marginType. Each record carries the coin's balance in
 * its margin account after it (`total`): each wallet (marginType, coin) replays to it.
 */
export const marginLedger = declareLedger({
  name: 'margin-ledger',
  title: 'Margin ledger',
  endpoint: marginRecordEndpoint,
  columns: marginLedgerColumns,
  table: 'margin_ledger_record',
  id: 'id',
  time: 'ts',
  paging: idLessThanPaging('ts'),
  scope: { param: 'marginType', values: MARGIN_TYPES, column: { name: 'margin_type', paramType: 'text' } },
  wallet: {
    label: 'margin',
    name: 'Margin',
    coin: 'coin',
    type: 'margin_tax_type',
    change: 'amount + fee',
    amountAndFee: { amount: 'amount', fee: 'fee' },
    runningTotal: 'total',
    transferIn: 'transfer_in',
    transferOut: 'transfer_out',
    // confiscated and compensate flagged `review:<type>` (their treatments say so).
    treatments: MARGIN_TREATMENTS,
    // A margin trade is a deal_out of what was paid and a deal_in of what was bought at one instant; a swap likewise.
    tradeLegs: [
      ['deal_out', 'deal_in'],
      ['exchange_out', 'exchange_in'],
    ],
  },
});
