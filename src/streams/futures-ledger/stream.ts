import { msParam, toMs } from '../../db/sql-time.ts';
import { ALWAYS_ELIGIBLE, mapPages, type StreamDefinition } from '../kit/stream-definition.ts';
import { PRODUCT_TYPES } from '../positions/stream.ts';
import { PRODUCT_TYPE_COLUMN, type ProductTypeValue } from '../positions/table.ts';
import { futuresLedgerColumns } from './columns.ts';
import { FUTURE_RECORD_HORIZON_DAYS, futureRecordEndpoint, futureRecordHorizon } from './endpoint.ts';
import { FUTURE_RECORD_PAGING, futureRecordsReadableFrom, pageFutureRecords } from './pager.ts';
import { futureRecordData } from './response.ts';
import { futuresLedgerTable, type ScopedFuturesRecord } from './table.ts';
import { FUTURES_TREATMENTS } from './treatments.ts';

/**
 * The futures wallets' finance records (transfers, realized pnl, fees, funding, liquidations),
 * windowed by ts and read once per productType (every margin coin of it at once). The futures
 * counterpart of spot's ledger; it carries no running balance.
 */
export const futuresLedger: StreamDefinition<ScopedFuturesRecord> = {
  name: 'futures-ledger',
  title: 'Futures ledger',
  answer: { schema: futureRecordData, shape: 'array' },
  endpoint: futureRecordEndpoint,
  scopes: PRODUCT_TYPES,
  horizon: {
    name: '1-year horizon',
    days: FUTURE_RECORD_HORIZON_DAYS,
    oldestReadable: futureRecordHorizon,
    servedFrom: futureRecordsReadableFrom,
  },
  changesAfterTheFact: false,
  columns: futuresLedgerColumns,
  scopeColumn: PRODUCT_TYPE_COLUMN,
  paging: FUTURE_RECORD_PAGING,
  treatments: {
    wallet: 'futures',
    typeColumn: futuresLedgerColumns.futureTaxType.column,
    // A closed position's row (history-position, before the ledger starts) is the futures wallet's too.
    alsoIds: ['position'],
    byType: FUTURES_TREATMENTS,
  },
  table: futuresLedgerTable,
  eligible: ALWAYS_ELIGIBLE,
  lookbackMs: (settings) => settings.lookbackMs,
  pages(client, window, scope, resumeFrom, paging) {
    const productType = productTypeOf(scope);
    return mapPages(
      pageFutureRecords(
        client,
        window,
        { productType },
        { resumeFrom, endsShort: paging?.endsShort ?? false, resumed: paging?.resumed, limit: paging?.limit },
      ),
      (record): ScopedFuturesRecord => ({ productType, record }),
    );
  },
  keyOf: (record) => record.record.id,
  storedKeysQuery: (accountId, scope, window) => ({
    text: `SELECT record_id AS key, read_id::text AS read FROM futures_ledger_record
            WHERE account_id = $1 AND product_type = $4::text::product_type
              AND ts >= ${msParam(2)} AND ts < ${msParam(3)}`,
    values: [accountId, String(window.start), String(window.end), scope],
  }),
  crowdedInstantsQuery: (accountId, atLeast) => ({
    text: `SELECT product_type::text AS scope, ${toMs('ts')} AS ts, count(*) AS stored FROM futures_ledger_record
            WHERE account_id = $1 GROUP BY product_type, ts HAVING count(*) >= $2`,
    values: [accountId, atLeast],
  }),
  runningBalance: false,
};

function productTypeOf(scope: string): ProductTypeValue {
  const productType = PRODUCT_TYPES.find((value) => value === scope);
  // Scopes come from PRODUCT_TYPES through the coverage ledger; anything else is a corrupt row.
  if (!productType) throw new Error(`futures-ledger scope ${JSON.stringify(scope)} is not a productType`);
  return productType;
}
