import { coinBalances } from '../../accounting/balances/coin-balances.ts';
import type { ComputedReportDefinition } from '../report-definition.ts';
import { decimal, text } from '../report-definition.ts';

/**
 * One row per coin: opening balance, the period's inflows, outflows and fees, closing balance,
 * with the ledger's signs (outflows and fees negative), so opening + inflows + outflows + fees =
 * closing exactly; the closing balance is checked against the exchange's own (the export fails
 * naming the coin when they differ). The breakdown columns split inflows and outflows by category:
 * inflows = trades_in + deposits + income + other_in, outflows = trades_out + withdrawals + other_out.
 */
export const balancesReport: ComputedReportDefinition = {
  name: 'balances',
  title: 'Balances',
  description:
    "opening and closing balance per coin with the period's inflows, outflows and fees; the closing balance ties to the exchange's",
  streams: ['spot'],
  accepts: { coin: true, includePending: false },
  columns: [
    text('coin'),
    decimal('opening_balance'),
    decimal('inflows'),
    decimal('outflows'),
    decimal('fees'),
    decimal('closing_balance'),
    text('records'),
    decimal('trades_in'),
    decimal('trades_out'),
    decimal('deposits'),
    decimal('withdrawals'),
    decimal('income'),
    decimal('other_in'),
    decimal('other_out'),
  ],
  kind: 'computed',
  async *rows(params, db) {
    const options = { accountId: params.accountId, start: params.period.start, end: params.period.end };
    for await (const b of coinBalances(db, { ...options, coin: params.coin })) {
      yield {
        cells: [
          b.coin,
          b.opening,
          b.inflows,
          b.outflows,
          b.fees,
          b.closing,
          b.records,
          b.tradesIn,
          b.tradesOut,
          b.deposits,
          b.withdrawals,
          b.income,
          b.otherIn,
          b.otherOut,
        ],
      };
    }
  },
};
