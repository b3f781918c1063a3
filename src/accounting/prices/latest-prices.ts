import type { Decimal } from 'decimal.js';

import { exactProduct, roundedQuotient } from './price-arithmetic.ts';
import { type PricePoint, TRADE_SOURCE, valuationSource } from './price-point.ts';
import { CARRIED_MARK, carries, RATE_CARRY_MS } from './rate-carry.ts';

/** A rate from one coin to another: units of `to` per unit of `from`. */
export interface Rate {
  readonly price: Decimal;
  /** The (oldest) point's time. */
  readonly atMs: number;
  readonly source: string;
}

/**
 * Intermediate quotes tried, in this order, when no direct pair is within the tolerance; any other
 * coin that links both sides comes after these, alphabetically. Stablecoin and dollar first because
 * that is where an exchange account's prices are densest (every spot market quotes USDT).
 */
export const PREFERRED_QUOTES: readonly string[] = ['USDT', 'USD', 'USDC', 'EUR', 'BTC', 'ETH'];

/**
 * The latest price point per ordered pair seen so far: memory is one point per pair however many
 * points stream past. Points must arrive in non-decreasing time order.
 *
 * Precedence of points of one pair at the same instant: `trade` first (a fill of the account at
 * exactly that millisecond is what it actually got; an imported point's time is a convention such
 * as a daily close), then imported sources by name (a-z), so the choice never depends on row order.
 */
export class LatestPrices {
  private readonly pairs = new Map<string, PricePoint>();
  private readonly partners = new Map<string, Set<string>>();

  add(point: PricePoint): void {
    const key = pairKey(point.base, point.quote);
    const held = this.pairs.get(key);
    if (held !== undefined && held.atMs === point.atMs && !outranks(point.source, held.source)) return;
    this.pairs.set(key, point);
    this.link(point.base, point.quote);
    this.link(point.quote, point.base);
  }

  /**
   * Units of `to` per unit of `from` at `atMs`: the nearest earlier point no older than
   * `toleranceMs` (a point exactly `toleranceMs` old still counts), of `from/to` or of `to/from`
   * inverted (the later of the two; the direct one at a tie); else through one quote Q
   * (`from/Q x Q/to`, each leg by the same rule, Q in PREFERRED_QUOTES order then a-z); else null.
   * An imported rate of a fiat pair stays usable for less than `carryMs` (rate-carry.ts: the last
   * rate published on or before a day without one), its source then marked `~carried`.
   */
  resolve(from: string, to: string, atMs: number, toleranceMs: number, carryMs = RATE_CARRY_MS): Rate | null {
    const direct = this.leg(from, to, atMs, toleranceMs, carryMs);
    if (direct !== null) return direct;
    for (const quote of this.quotesBetween(from, to)) {
      const first = this.leg(from, quote, atMs, toleranceMs, carryMs);
      const second = first === null ? null : this.leg(quote, to, atMs, toleranceMs, carryMs);
      if (first !== null && second !== null) {
        return {
          price: exactProduct(first.price, second.price),
          atMs: Math.min(first.atMs, second.atMs),
          source: `${first.source}*${second.source}`,
        };
      }
    }
    return null;
  }

  // Called for every valuation of every walk: no closure made per call (under tsx each one made is
  // also named at run time, which cost the demo's walks more than the lookups themselves).
  private leg(from: string, to: string, atMs: number, toleranceMs: number, carryMs: number): Rate | null {
    const direct = fresh(this.pairs.get(pairKey(from, to)), atMs, toleranceMs, carryMs);
    const inverse = fresh(this.pairs.get(pairKey(to, from)), atMs, toleranceMs, carryMs);
    if (direct !== undefined && (inverse === undefined || direct.atMs >= inverse.atMs)) {
      return { price: direct.price, atMs: direct.atMs, source: legSource(direct, atMs, toleranceMs) };
    }
    if (inverse !== undefined) {
      return {
        price: roundedQuotient(1, inverse.price),
        atMs: inverse.atMs,
        source: legSource(inverse, atMs, toleranceMs),
      };
    }
    return null;
  }

  private quotesBetween(from: string, to: string): string[] {
    const left = this.partners.get(from);
    const right = this.partners.get(to);
    if (left === undefined || right === undefined) return [];
    const shared = [...left].filter((coin) => right.has(coin) && coin !== from && coin !== to);
    return shared.sort((a, b) => quoteRank(a) - quoteRank(b) || (a < b ? -1 : a > b ? 1 : 0));
  }

  private link(coin: string, partner: string): void {
    let set = this.partners.get(coin);
    if (set === undefined) {
      set = new Set();
      this.partners.set(coin, set);
    }
    set.add(partner);
  }
}

/**
 * The point if it prices `atMs`: no later than it, and no older than `toleranceMs` (or, a fiat rate
 * that carries, younger than `carryMs`).
 */
function fresh(
  point: PricePoint | undefined,
  atMs: number,
  toleranceMs: number,
  carryMs: number,
): PricePoint | undefined {
  return point !== undefined &&
    point.atMs <= atMs &&
    (atMs - point.atMs <= toleranceMs || (carries(point) && atMs - point.atMs < carryMs))
    ? point
    : undefined;
}

/** A leg's source, marked as carried when its point is older than the tolerance. */
function legSource(point: PricePoint, atMs: number, toleranceMs: number): string {
  return `${valuationSource(point.source)}${atMs - point.atMs > toleranceMs ? CARRIED_MARK : ''}`;
}

function pairKey(base: string, quote: string): string {
  return `${base}/${quote}`;
}

function quoteRank(coin: string): number {
  const rank = PREFERRED_QUOTES.indexOf(coin);
  return rank === -1 ? PREFERRED_QUOTES.length : rank;
}

/** Whether a point from `source` replaces one from `held` at the same instant. */
function outranks(source: string, held: string): boolean {
  if (held === TRADE_SOURCE) return false;
  if (source === TRADE_SOURCE) return true;
  return source < held;
}
