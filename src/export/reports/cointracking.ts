import { ENTRY_DESCRIPTION, ENTRY_ORDER, ledgerEntriesCte } from '../../booking/ledger-entries.ts';
import { SqlParams } from '../../booking/sql-params.ts';
import type { SqlReportDefinition } from '../report-definition.ts';
import { decimal, text } from '../report-definition.ts';

/**
 * CoinTracking's CSV import format, dates in UTC. Tx-ID carries the exchange's record id(s), which
 * CoinTracking uses to recognise a row imported twice.
 */
export const coinTrackingReport: SqlReportDefinition = {
  name: 'cointracking',
  title: 'CoinTracking CSV',
  description: "the spot ledger in CoinTracking's CSV import format (UTC dates)",
  dateZone: 'UTC',
  streams: ['spot', 'positions'],
  accepts: { coin: true, includePending: false },
  columns: [
    text('Type'),
    decimal('Buy Amount'),
    text('Buy Currency'),
    decimal('Sell Amount'),
    text('Sell Currency'),
    decimal('Fee'),
    text('Fee Currency'),
    text('Exchange'),
    text('Trade-Group'),
    text('Comment'),
    text('Date'),
    text('Tx-ID'),
  ],
  kind: 'sql',
  query(params) {
    const p = new SqlParams();
    const cte = ledgerEntriesCte(p, params);
    const exchange = p.add(params.accountName ?? 'ledgerline', 'text');
    const sql = `${cte}
      SELECT ct_type, received_amount::text, received_coin, sent_amount::text, sent_coin, fee_amount::text, fee_coin,
        ${exchange}, category, ${ENTRY_DESCRIPTION},
        to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'), record_ids, flag
      FROM entries ${ENTRY_ORDER}`;
    return { text: sql, values: p.values };
  },
};
