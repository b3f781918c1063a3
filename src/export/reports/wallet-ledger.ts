import { byteOrder, localTime, unixMs, unmappedCell, unmappedFlag, utcTime } from '../../booking/sql-fragments.ts';
import { accountAndPeriod, SqlParams } from '../../booking/sql-params.ts';
import { STREAM_TITLES, streamDefinition, walletFacts, type WalletLedger } from '../../streams/registry.ts';
import type { SqlReportDefinition } from '../report-definition.ts';
import { decimal, REVIEW_PREFIX, text } from '../report-definition.ts';

/**
 * The report of one wallet ledger (margin-ledger, p2p-ledger), derived from its declaration: every
 * record of the period, every field that matters, with its tax treatment (the kind its ledger's
 * declaration gives the type, the word the gains walk and docs/reports.md use; a type outside the
 * documented list is `unmapped` and flagged), `change` what it moves its wallet by and `total` the
 * running total when the exchange sends one. A type whose treatment a person must look at (margin's
 * confiscated/compensate, a P2P buy or sell) is flagged `review:<type>`, as in the tax-tool files.
 * `coin` filters by coin. Ids text-safe (`<wallet>:<id>`).
 */
export function walletLedgerReport(stream: WalletLedger): SqlReportDefinition {
  const definition = streamDefinition(stream);
  const facts = walletFacts(stream);
  const scope = definition.scopeColumn ? `w.${definition.scopeColumn.name}::text` : `''`;
  return {
    name: stream,
    title: STREAM_TITLES[stream],
    description: `every ${facts.label} finance record of the period, with its tax treatment`,
    streams: [stream],
    accepts: { coin: true, includePending: false },
    columns: [
      text('record_id'),
      text('time_utc'),
      text('time_local'),
      text('ts_ms'),
      text('scope'),
      text('coin'),
      text('type'),
      text('treatment'),
      decimal('change'),
      decimal('total'),
      text('unmapped'),
    ],
    kind: 'sql',
    query(params) {
      const p = new SqlParams();
      const where = accountAndPeriod(p, params, 'ts', 'w');
      const entries = Object.entries(facts.treatments);
      const types = p.add(
        entries.map(([type]) => type),
        'text[]',
      );
      const treatments = p.add(
        entries.map(([, treatment]) => treatment.kind),
        'text[]',
      );
      const reviewed = p.add(
        entries.filter(([, treatment]) => treatment.review === true).map(([type]) => type),
        'text[]',
      );
      const coin = params.coin ? ` AND w.${facts.coin} = ${p.add(params.coin)}` : '';
      const treatment = `(${treatments})[array_position(${types}, w.${facts.type})]`;
      const sql = `SELECT '${facts.label}:' || w.record_id, ${utcTime('w.ts')}, ${localTime('w.ts')}, ${unixMs('w.ts')},
          ${scope}, w.${facts.coin}, w.${facts.type}, coalesce(${treatment}, 'unmapped'),
          (${facts.change})::text, ${facts.runningTotal ? `w.${facts.runningTotal}::text` : `''`},
          ${unmappedCell('w.unmapped')},
          coalesce(CASE WHEN ${treatment} IS NULL THEN 'type=' || w.${facts.type} END,
            CASE WHEN w.${facts.type} = ANY(${reviewed}) THEN '${REVIEW_PREFIX}' || w.${facts.type} END,
            ${unmappedFlag('w.unmapped')})
        FROM ${definition.table.table} w
        WHERE ${where}${coin}
        ORDER BY w.ts, length(w.record_id), ${byteOrder('w.record_id')}`;
      return { text: sql, values: p.values };
    },
  };
}
