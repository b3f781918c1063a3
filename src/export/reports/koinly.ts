import { ENTRY_DESCRIPTION, ENTRY_ORDER, ledgerEntriesCte } from '../../booking/ledger-entries.ts';
import { SqlParams } from '../../booking/sql-params.ts';
import type { SqlReportDefinition } from '../report-definition.ts';
import { decimal, text } from '../report-definition.ts';

/** Koinly's universal CSV (header exactly as Koinly documents it), dates in UTC. */
export const koinlyReport: SqlReportDefinition = {
  name: 'koinly',
  title: 'Koinly universal CSV',
  description: "the spot ledger in Koinly's universal import format (UTC dates)",
  dateZone: 'UTC',
  streams: ['spot', 'positions'],
  accepts: { coin: true, includePending: false },
  columns: [
    text('Date'),
    decimal('Sent Amount'),
    text('Sent Currency'),
    decimal('Received Amount'),
    text('Received Currency'),
    decimal('Fee Amount'),
    text('Fee Currency'),
    decimal('Net Worth Amount'),
    text('Net Worth Currency'),
    text('Label'),
    text('Description'),
    text('TxHash'),
  ],
  kind: 'sql',
  query(params) {
    const p = new SqlParams();
    const sql = `${ledgerEntriesCte(p, params)}
      SELECT to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS "UTC"'),
        sent_amount::text, sent_coin, received_amount::text, received_coin, fee_amount::text, fee_coin,
        '', '', koinly_label, ${ENTRY_DESCRIPTION}, '', flag
      FROM entries ${ENTRY_ORDER}`;
    return { text: sql, values: p.values };
  },
};
