import { msParam } from '../../db/sql-time.ts';
import { MAX_SPAN_DAYS, pageSpotRecords } from '../../exchange/index.ts';
import { MAX_PAGE_SIZE } from '../../exchange/paging/pagers.ts';
import type { SpotLedgerRecord } from '../kit/record-types.ts';
import { ALWAYS_ELIGIBLE, crowdedInstantsByTs, type StreamDefinition } from '../kit/stream-definition.ts';
import { spotRecordTable } from './table.ts';

/** The spot account's finance records (the ledger with a running balance), windowed by ts. */
export const spot: StreamDefinition<SpotLedgerRecord> = {
  name: 'spot',
  endpoint: 'spotRecord',
  pageLimit: MAX_PAGE_SIZE.spotRecord,
  windowDays: MAX_SPAN_DAYS.spotRecord,
  scopes: [''],
  changesAfterTheFact: false,
  table: spotRecordTable,
  eligible: ALWAYS_ELIGIBLE,
  lookbackMs: (settings) => settings.lookbackMs,
  pages: (client, window, _scope, resumeFrom) => pageSpotRecords(client, window, {}, { resumeFrom }),
  keyOf: (record) => record.id,
  storedKeysQuery: (accountId, _scope, window) => ({
    text: `SELECT record_id AS key FROM spot_record
            WHERE account_id = $1 AND ts >= ${msParam(2)} AND ts < ${msParam(3)}`,
    values: [accountId, String(window.start), String(window.end)],
  }),
  crowdedInstantsQuery: crowdedInstantsByTs('spot_record'),
};
