import { Decimal } from 'decimal.js';
import type pg from 'pg';

import { ValidationError } from '../../errors/index.ts';
import { ForwardPriceBook, type PointFeed } from './forward-price-book.ts';
import type { PriceBook } from './price-book.ts';
import type { PricePoint } from './price-point.ts';
import { RATE_CARRY_MS } from './rate-carry.ts';

export interface OpenPriceBookOptions {
  /** Whose `trade` points count (imported points, account_id NULL, count for every account). */
  readonly accountId: string;
  /** The valuation currency (config VALUATION_CURRENCY). */
  readonly currency: string;
  /** How old a point may be and still price an instant (config PRICE_TOLERANCE, in ms). */
  readonly toleranceMs: number;
  /**
   * The earliest instant the caller will value (a walk resumed from a gains checkpoint). The feed
   * then starts at the points `toleranceMs` (or the rate carry, if longer) before it instead of the first point: for any instant
   * from `fromMs` on, an older point is beyond the tolerance and the book answers as if it had read
   * every point (the latest point of each pair within the tolerance, ties decided by source).
   */
  readonly fromMs?: number | undefined;
}

/** Points fetched per round trip: the most the feed holds at once, besides one point per pair. */
const PAGE_SIZE = 2_000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The `price` table as a PriceBook: the lookup of memoryPriceBook (both are a ForwardPriceBook),
 * over the account's own `trade` points and every imported point, read forwards in time.
 *
 * Why keyset pages and not a cursor: a caller walks its own records (often through a
 * pg-query-stream) on this same connection while it values them. A protocol-level cursor keeps the
 * connection busy until it ends, so a second one would wait for the first forever. Each page here
 * is one short, complete statement (`(time, id) > last ... LIMIT n`), so it interleaves with
 * anything, provided the caller's own cursor is not holding the connection at the moment it calls
 * `value` (a pg-query-stream does until it ends: give the book its own client in that case, or read
 * your records with DECLARE/FETCH). Memory: one page plus the latest point per pair.
 */
export async function openPriceBook(db: pg.ClientBase, options: OpenPriceBookOptions): Promise<PriceBook> {
  if (!UUID.test(options.accountId)) throw new ValidationError('accountId', 'must be a UUID', options.accountId);
  const feed = new PricePages(
    db,
    options.accountId,
    // A fiat rate is carried up to RATE_CARRY_MS (rate-carry.ts): the feed starts before the longer of the two.
    options.fromMs === undefined ? undefined : options.fromMs - Math.max(options.toleranceMs, RATE_CARRY_MS),
  );
  return new ForwardPriceBook(options.currency, options.toleranceMs, feed);
}

interface PriceRow {
  id: string;
  ms: string;
  base: string;
  quote: string;
  price: string;
  source: string;
}

// Cast to text: whatever type parsers the caller's connection has, numbers stay exact strings.
// Qualified names: a bare `ORDER BY id` would sort by the text output column, not the keyset's bigint.
const PAGE = `
  SELECT p.id::text AS id, (extract(epoch FROM p.time) * 1000)::bigint::text AS ms,
         p.base, p.quote, p.price::text AS price, p.source
    FROM price p
   WHERE (p.account_id IS NULL OR p.account_id = $1::uuid)
     AND (p.time, p.id) > (timestamptz 'epoch' + $2::bigint * interval '1 millisecond', $3::bigint)
   ORDER BY p.time, p.id
   LIMIT ${PAGE_SIZE}`;

class PricePages implements PointFeed {
  private page: PricePoint[] = [];
  private index = 0;
  private lastMs = '-62135596800000'; // 0001-01-01: before any point
  private lastId = '0';
  private done = false;

  /** `fromMs`: the first point's earliest time (all points when undefined). */
  constructor(
    private readonly db: pg.ClientBase,
    private readonly accountId: string,
    fromMs?: number,
  ) {
    // The keyset is "after (time, id)", and ids start at 1: every point at fromMs itself is read.
    if (fromMs !== undefined) this.lastMs = String(fromMs);
  }

  async next(): Promise<PricePoint | undefined> {
    if (this.index >= this.page.length) {
      if (this.done) return undefined;
      await this.fetch();
      if (this.page.length === 0) return undefined;
    }
    return this.page[this.index++];
  }

  close(): Promise<void> {
    this.done = true;
    this.page = [];
    return Promise.resolve();
  }

  private async fetch(): Promise<void> {
    const { rows } = await this.db.query<PriceRow>(PAGE, [this.accountId, this.lastMs, this.lastId]);
    this.done = rows.length < PAGE_SIZE;
    this.index = 0;
    this.page = rows.map((row) => ({
      atMs: Number(row.ms),
      base: row.base.toUpperCase(),
      quote: row.quote.toUpperCase(),
      price: new Decimal(row.price),
      source: row.source,
    }));
    const last = rows.at(-1);
    if (last !== undefined) {
      this.lastMs = last.ms;
      this.lastId = last.id;
    }
  }
}
