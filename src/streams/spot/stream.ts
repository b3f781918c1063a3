import { msParam } from '../../db/sql-time.ts';
import { ALWAYS_ELIGIBLE, crowdedInstantsByTs, type StreamDefinition } from '../kit/stream-definition.ts';
import { spotColumns, type SpotLedgerRecord } from './columns.ts';
import { spotRecordEndpoint } from './endpoint.ts';
import { pageSpotRecords, SPOT_PAGING } from './pager.ts';
import { spotRecordData } from './response.ts';
import { spotRecordTable } from './table.ts';
import { SPOT_TREATMENTS } from './treatments.ts';

/** The spot account's finance records (the ledger with a running balance), windowed by ts. */
export const spot: StreamDefinition<SpotLedgerRecord> = {
  name: 'spot',
  title: 'Spot records',
  answer: { schema: spotRecordData, shape: 'array' },
  endpoint: spotRecordEndpoint,
  scopes: [''],
  changesAfterTheFact: false,
  columns: spotColumns,
  paging: SPOT_PAGING,
  treatments: { wallet: 'spot', typeColumn: spotColumns.spotTaxType.column, byType: SPOT_TREATMENTS },
  table: spotRecordTable,
  eligible: ALWAYS_ELIGIBLE,
  lookbackMs: (settings) => settings.lookbackMs,
  pages: (client, window, _scope, resumeFrom, paging) =>
    pageSpotRecords(
      client,
      window,
      {},
      { resumeFrom, endsShort: paging?.endsShort ?? false, resumed: paging?.resumed, limit: paging?.limit },
    ),
  keyOf: (record) => record.id,
  storedKeysQuery: (accountId, _scope, window) => ({
    text: `SELECT record_id AS key, read_id::text AS read FROM spot_record
            WHERE account_id = $1 AND ts >= ${msParam(2)} AND ts < ${msParam(3)}`,
    values: [accountId, String(window.start), String(window.end)],
  }),
  crowdedInstantsQuery: crowdedInstantsByTs('spot_record'),
  // Each record carries the coin's balance after it: reconciliation chains them and anchors the chain at the exchange.
  runningBalance: true,
};
