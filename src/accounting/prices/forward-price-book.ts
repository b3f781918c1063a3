import { Decimal } from 'decimal.js';

import { ValidationError } from '../../errors/index.ts';
import { LatestPrices } from './latest-prices.ts';
import { exactProduct } from './price-arithmetic.ts';
import type { PriceBook, Valuation } from './price-book.ts';
import { coinCode, type PricePoint } from './price-point.ts';
import { RATE_CARRY_MS } from './rate-carry.ts';

/** Price points in non-decreasing time order, read one at a time. */
export interface PointFeed {
  /** The next point, or undefined when there are no more. */
  next(): Promise<PricePoint | undefined>;
  close(): Promise<void>;
}

/** The source a Valuation of the currency itself reports: one unit is worth exactly one unit. */
export const PAR_SOURCE = 'par';

/**
 * A PriceBook over a forward feed of points: before each lookup it takes in every point up to the
 * instant asked, keeping the latest per pair (LatestPrices), and holds back the first later point.
 * Both books (memory and Postgres) are this one class, so their lookups cannot drift apart.
 */
export class ForwardPriceBook implements PriceBook {
  readonly currency: string;
  private readonly latest = new LatestPrices();
  private pending: PricePoint | undefined;
  private exhausted = false;
  private lastAtMs = Number.NEGATIVE_INFINITY;
  private lastPointMs = Number.NEGATIVE_INFINITY;

  constructor(
    currency: string,
    private readonly toleranceMs: number,
    private readonly feed: PointFeed,
    /** How long an imported fiat rate values days without one (rate-carry.ts); tests shorten it. */
    private readonly carryMs: number = RATE_CARRY_MS,
  ) {
    this.currency = coinCode('currency', currency);
    if (!Number.isSafeInteger(toleranceMs) || toleranceMs < 0) {
      throw new ValidationError('toleranceMs', 'must be a whole number of milliseconds, 0 or more', toleranceMs);
    }
  }

  async value(coin: string, quantity: Decimal, at: Date): Promise<Valuation | null> {
    const atMs = at instanceof Date ? at.getTime() : Number.NaN;
    if (!Number.isFinite(atMs)) throw new ValidationError('at', 'must be a valid Date', at);
    if (atMs < this.lastAtMs) {
      throw new ValidationError(
        'at',
        `must not be earlier than the previous call's ${new Date(this.lastAtMs).toISOString()} (a book only reads forwards)`,
        at.toISOString(),
      );
    }
    this.lastAtMs = atMs;
    // Coins come from stored records, not from a user: one no price can name is unpriced, not an error.
    const code = coin.trim().toUpperCase();
    if (code === this.currency) {
      return { value: new Decimal(quantity), price: new Decimal(1), priceAt: new Date(atMs), source: PAR_SOURCE };
    }
    await this.advanceTo(atMs);
    const rate = this.latest.resolve(code, this.currency, atMs, this.toleranceMs, this.carryMs);
    if (rate === null) return null;
    return {
      value: exactProduct(quantity, rate.price),
      price: rate.price,
      priceAt: new Date(rate.atMs),
      source: rate.source,
    };
  }

  close(): Promise<void> {
    this.exhausted = true;
    this.pending = undefined;
    return this.feed.close();
  }

  private async advanceTo(atMs: number): Promise<void> {
    for (;;) {
      if (this.pending === undefined) {
        if (this.exhausted) return;
        this.pending = await this.feed.next();
        if (this.pending === undefined) {
          this.exhausted = true;
          return;
        }
        if (this.pending.atMs < this.lastPointMs) {
          throw new Error(`price feed out of time order at ${new Date(this.pending.atMs).toISOString()}`);
        }
        this.lastPointMs = this.pending.atMs;
      }
      if (this.pending.atMs > atMs) return;
      this.latest.add(this.pending);
      this.pending = undefined;
    }
  }
}
