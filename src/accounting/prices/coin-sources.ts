import type pg from 'pg';

import { ValidationError } from '../../errors/index.ts';
import { streamDefinition, WALLET_LEDGERS, walletFacts } from '../../streams/registry.ts';
import { coinCode } from './price-point.ts';

/** One coin an account's records carry, and the price sources that name it. */
export interface CoinSources {
  readonly coin: string;
  /** The sources of every point naming the coin (as base or quote): imports' names, `trade`. Empty: none. */
  readonly sources: readonly string[];
  /** The first and last such point (ISO 8601 UTC), null without one. */
  readonly firstPoint: string | null;
  readonly lastPoint: string | null;
  /** The coin is the valuation currency: worth its quantity (source `par`), no price needed. */
  readonly isCurrency: boolean;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The coins held SQL: every coin a record of the account carries, in spot (`coin`), the futures
 * ledger (`margin_coin`) and every wallet ledger of the registry (its declared coin column): a new
 * wallet ledger is asked with no edit here.
 */
function heldCoinsSql(): string {
  const wallets = WALLET_LEDGERS.map(
    (ledger) =>
      `SELECT DISTINCT upper(${walletFacts(ledger).coin}) AS coin FROM ${streamDefinition(ledger).table.table} WHERE account_id = $1::uuid`,
  );
  return [
    'SELECT DISTINCT upper(coin) AS coin FROM spot_record WHERE account_id = $1::uuid',
    'SELECT DISTINCT upper(margin_coin) AS coin FROM futures_ledger_record WHERE account_id = $1::uuid',
    ...wallets,
  ].join('\n UNION ');
}

/**
 * Per coin the account's records carry: the price sources that name it (imported market data for
 * every account, the account's own `trade` points), first and last point. A coin with no source is
 * unpriced in every valuation until one is imported: `ledgerline prices sources` lists it so
 * (docs/reports.md, "Prices and valuation"). A stablecoin is no exception: it is valued from a
 * source, never assumed worth its peg.
 */
export async function coinSources(db: pg.ClientBase, accountId: string, currency: string): Promise<CoinSources[]> {
  if (!UUID.test(accountId)) throw new ValidationError('accountId', 'must be a UUID', accountId);
  const code = coinCode('currency', currency);
  const { rows } = await db.query<{ coin: string; sources: string[]; first: string | null; last: string | null }>(
    `WITH held AS (${heldCoinsSql()}),
          named AS (
            SELECT base AS coin, source, time FROM price WHERE account_id IS NULL OR account_id = $1::uuid
            UNION ALL
            SELECT quote, source, time FROM price WHERE account_id IS NULL OR account_id = $1::uuid)
     SELECT h.coin, coalesce(array_agg(DISTINCT n.source ORDER BY n.source) FILTER (WHERE n.source IS NOT NULL), '{}') AS sources,
            to_char(min(n.time) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS first,
            to_char(max(n.time) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS last
       FROM held h LEFT JOIN named n ON n.coin = h.coin
      GROUP BY h.coin ORDER BY h.coin`,
    [accountId],
  );
  return rows.map((r) => ({
    coin: r.coin,
    sources: r.sources,
    firstPoint: r.first,
    lastPoint: r.last,
    isCurrency: r.coin === code,
  }));
}

/** The coins held that no source names (the valuation currency needs none). */
export function withoutSource(coins: readonly CoinSources[]): string[] {
  return coins.filter((c) => !c.isCurrency && c.sources.length === 0).map((c) => c.coin);
}
