import type pg from 'pg';

import { ValidationError } from '../../errors/index.ts';
import { coinCode } from './price-point.ts';

export interface ListPricesFilter {
  readonly base?: string | undefined;
  readonly quote?: string | undefined;
  /** Unix ms, inclusive. */
  readonly fromMs?: number | undefined;
  /** Unix ms, exclusive. */
  readonly toMs?: number | undefined;
  /** Also this account's `trade` points (imports are always listed). */
  readonly accountId?: string | undefined;
  readonly limit: number;
}

export interface ListedPrice {
  readonly time: string;
  readonly base: string;
  readonly quote: string;
  readonly price: string;
  readonly source: string;
  /** The account a `trade` point belongs to, by name; null for imported market data. */
  readonly account: string | null;
}

/** Price points in time order (then base, quote, source), exact prices as text. */
export async function listPrices(db: pg.ClientBase, filter: ListPricesFilter): Promise<ListedPrice[]> {
  if (!Number.isInteger(filter.limit) || filter.limit < 1 || filter.limit > 100_000) {
    throw new ValidationError('--limit', 'must be a whole number from 1 to 100000', filter.limit);
  }
  const base = filter.base === undefined ? null : coinCode('--base', filter.base);
  const quote = filter.quote === undefined ? null : coinCode('--quote', filter.quote);
  const { rows } = await db.query<ListedPrice>(
    `SELECT to_char(p.time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS time, p.base, p.quote,
            p.price::text AS price, p.source, a.name AS account
       FROM price p LEFT JOIN account a ON a.id = p.account_id
      WHERE (p.account_id IS NULL OR p.account_id = $1::uuid)
        AND ($2::text IS NULL OR p.base = $2) AND ($3::text IS NULL OR p.quote = $3)
        AND ($4::bigint IS NULL OR p.time >= timestamptz 'epoch' + $4::bigint * interval '1 millisecond')
        AND ($5::bigint IS NULL OR p.time < timestamptz 'epoch' + $5::bigint * interval '1 millisecond')
      ORDER BY p.time, p.base, p.quote, p.source
      LIMIT $6`,
    [filter.accountId ?? null, base, quote, filter.fromMs ?? null, filter.toMs ?? null, filter.limit],
  );
  return rows;
}
