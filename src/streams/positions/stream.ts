import { msParam, toMs } from '../../db/sql-time.ts';
import { ALWAYS_ELIGIBLE, mapPages, type StreamDefinition } from '../kit/stream-definition.ts';
import { positionColumns } from './columns.ts';
import { historyPositionEndpoint, POSITION_HORIZON_DAYS, positionHorizon } from './endpoint.ts';
import { pageHistoryPositions, POSITION_PAGING, positionsReadableFrom } from './pager.ts';
import { historyPositionData } from './response.ts';
import { futuresPositionTable, PRODUCT_TYPE_COLUMN, type ProductTypeValue, type ScopedPosition } from './table.ts';

/** Read once per productType: the endpoint's default is USDT-FUTURES only. */
export const PRODUCT_TYPES: readonly ProductTypeValue[] = ['USDT-FUTURES', 'COIN-FUTURES', 'USDC-FUTURES'];

/**
 * Closed futures positions, windowed by their last update (utime). The
 * exchange keeps only 3 months of them: this is the stream the nightly run
 * exists for.
 */
export const positions: StreamDefinition<ScopedPosition> = {
  name: 'positions',
  title: 'Futures positions',
  answer: { schema: historyPositionData, shape: 'list-and-end-id' },
  endpoint: historyPositionEndpoint,
  scopes: PRODUCT_TYPES,
  horizon: {
    name: '3-month horizon',
    days: POSITION_HORIZON_DAYS,
    oldestReadable: positionHorizon,
    servedFrom: positionsReadableFrom,
  },
  changesAfterTheFact: false,
  columns: positionColumns,
  scopeColumn: PRODUCT_TYPE_COLUMN,
  paging: POSITION_PAGING,
  table: futuresPositionTable,
  eligible: ALWAYS_ELIGIBLE,
  lookbackMs: (settings) => settings.lookbackMs,
  pages(client, window, scope, resumeFrom, paging) {
    const productType = productTypeOf(scope);
    return mapPages(
      pageHistoryPositions(
        client,
        window,
        { productType },
        { resumeFrom, endsShort: paging?.endsShort ?? false, resumed: paging?.resumed, limit: paging?.limit },
      ),
      (position): ScopedPosition => ({ productType, position }),
    );
  },
  keyOf: (record) => record.position.positionId,
  storedKeysQuery: (accountId, scope, window) => ({
    text: `SELECT position_id AS key, read_id::text AS read FROM futures_position
            WHERE account_id = $1 AND product_type = $4::text::product_type
              AND updated_time >= ${msParam(2)} AND updated_time < ${msParam(3)}`,
    values: [accountId, String(window.start), String(window.end), scope],
  }),
  crowdedInstantsQuery: (accountId, atLeast, since = 0) => ({
    text: `SELECT product_type::text AS scope, ${toMs('updated_time')} AS ts, count(*) AS stored FROM futures_position
            WHERE account_id = $1 AND updated_time >= ${msParam(3)}
            GROUP BY product_type, updated_time HAVING count(*) >= $2`,
    values: [accountId, atLeast, String(since)],
  }),
  runningBalance: false,
};

function productTypeOf(scope: string): ProductTypeValue {
  const productType = PRODUCT_TYPES.find((value) => value === scope);
  // Scopes come from PRODUCT_TYPES through the coverage ledger; anything else is a corrupt row.
  if (!productType) throw new Error(`positions scope ${JSON.stringify(scope)} is not a productType`);
  return productType;
}
