import {
  byteOrder,
  enumOrRaw,
  localTime,
  unixMs,
  unmappedCell,
  unmappedFlag,
  utcTime,
} from '../../booking/sql-fragments.ts';
import { accountAndPeriod, SqlParams } from '../../booking/sql-params.ts';
import { textSafeIdSql } from '../../booking/text-safe-ids.ts';
import type { SqlReportDefinition } from '../report-definition.ts';
import { decimal, text } from '../report-definition.ts';

// `unknown` (a status the spec does not list) is not known to be pending, so it is kept: never dropped.
const FINAL_STATUSES = ['success', 'fail', 'unknown'];

/**
 * Deposits and withdrawals of the broker's sub-accounts whose last update falls in the period.
 * A pending record can still change, so by default only final statuses are listed.
 */
export const brokerTransfersReport: SqlReportDefinition = {
  name: 'broker-transfers',
  title: 'Broker sub-account deposits and withdrawals',
  description: 'deposits and withdrawals of broker sub-accounts (final statuses unless pending is asked for)',
  streams: ['transfers'],
  accepts: { coin: true, includePending: true },
  columns: [
    text('sub_uid'),
    text('tx_id'),
    text('type'),
    text('sub_type'),
    text('coin'),
    decimal('amount'),
    text('status'),
    text('time_utc'),
    text('time_local'),
    text('ts_ms'),
    text('unmapped'),
  ],
  kind: 'sql',
  query(params) {
    const p = new SqlParams();
    const where = accountAndPeriod(p, params, 'ts');
    const statuses = p.add(params.includePending ? [...FINAL_STATUSES, 'pending'] : FINAL_STATUSES, 'text[]');
    const coin = params.coin ? ` AND coin = ${p.add(params.coin)}` : '';
    const sql = `SELECT sub_uid, ${textSafeIdSql('transfer', 'tx_id')}, type, ${enumOrRaw('sub_type', 'subType')}, coin, amount::text,
        ${enumOrRaw('status', 'status')}, ${utcTime('ts')}, ${localTime('ts')}, ${unixMs('ts')},
        ${unmappedCell()}, ${unmappedFlag()}
      FROM broker_transfer
      WHERE ${where} AND status::text = ANY(${statuses})${coin}
      ORDER BY ts, ${byteOrder('tx_id')}, ${byteOrder('type')}`;
    return { text: sql, values: p.values };
  },
};
