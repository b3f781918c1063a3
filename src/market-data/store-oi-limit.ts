import type pg from 'pg';

import type { OpenInterestLimit } from '../exchange/index.ts';

/**
 * Appends an open-interest-limit snapshot to the account's time series, but
 * only when the limits differ from the latest stored ones: the series records
 * changes, not every poll. Returns whether a snapshot was written.
 */
export async function storeOiLimit(
  pool: pg.Pool,
  accountId: string,
  category: string,
  limit: OpenInterestLimit,
  capturedAt: Date,
): Promise<boolean> {
  const result = await pool.query(
    `INSERT INTO open_interest_limit_snapshot
       (account_id, symbol, category, captured_at, single_user_limit, master_sub_limit, market_maker_limit, raw)
     SELECT $1, $2, $3::product_type, $4, $5::numeric, $6::numeric, $7::numeric, $8::jsonb
      WHERE NOT EXISTS (
        SELECT 1 FROM (
          SELECT single_user_limit, master_sub_limit, market_maker_limit FROM open_interest_limit_snapshot
           WHERE account_id = $1 AND symbol = $2 AND category = $3::product_type
           ORDER BY captured_at DESC LIMIT 1
        ) latest
        WHERE latest.single_user_limit = $5::numeric AND latest.master_sub_limit = $6::numeric
          AND latest.market_maker_limit = $7::numeric)`,
    [
      accountId,
      limit.symbol,
      category,
      capturedAt,
      limit.singleUserLimit,
      limit.masterSubLimit,
      limit.marketMakerLimit,
      JSON.stringify(limit),
    ],
  );
  return result.rowCount === 1;
}
