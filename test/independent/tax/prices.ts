import { Decimal } from 'decimal.js';

/**
 * The price lookup of docs/reports.md "Prices and valuation", written from the text (nothing of
 * src/): the nearest point at or before the instant within 36 h (a fiat pair's rate up to the
 * carry's 4 days more), the direct pair or its inverse (the later; the direct one at a tie), else
 * through one intermediate coin in the order USDT, USD, USDC, EUR, BTC, ETH, then any other a-z.
 * At one instant a `trade` point wins over imports, imports by source name.
 */
export interface PricePoint {
  readonly ms: number;
  readonly price: Decimal;
  readonly source: string;
}

const TOLERANCE_MS = 36 * 3_600_000;
/** RATE_CARRY_DAYS 4: a rate of date D values D and the 4 days after it (docs "Rates on days without one"). */
const FIAT_TOLERANCE_MS = 5 * 86_400_000;
const FIAT = new Set(['GBP', 'EUR', 'USD', 'CHF', 'JPY']);
const QUOTES = ['USDT', 'USD', 'USDC', 'EUR', 'BTC', 'ETH'];
const PRECISE = Decimal.clone({ precision: 28, rounding: Decimal.ROUND_HALF_EVEN });

function rank(p: PricePoint): string {
  return p.source === 'trade' ? '0' : `1${p.source}`;
}

export class IndependentPrices {
  private readonly pairs = new Map<string, PricePoint[]>();
  private readonly coins = new Set<string>();

  constructor(points: readonly { base: string; quote: string; ms: number; price: string; source: string }[]) {
    for (const p of points) {
      const key = `${p.base}/${p.quote}`;
      const list = this.pairs.get(key) ?? [];
      list.push({ ms: p.ms, price: new Decimal(p.price), source: p.source });
      this.pairs.set(key, list);
      this.coins.add(p.base).add(p.quote);
    }
    // Sorted by time; at one instant the preferred point last, so "the last at or before" takes it.
    for (const list of this.pairs.values())
      list.sort((a, b) => a.ms - b.ms || (rank(a) < rank(b) ? 1 : rank(a) > rank(b) ? -1 : 0));
  }

  private latest(base: string, quote: string, ms: number): PricePoint | null {
    const list = this.pairs.get(`${base}/${quote}`);
    if (!list) return null;
    let lo = 0;
    let hi = list.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid]!.ms <= ms) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (found < 0) return null;
    const p = list[found]!;
    const tolerance = FIAT.has(base) || FIAT.has(quote) ? FIAT_TOLERANCE_MS : TOLERANCE_MS;
    return ms - p.ms <= tolerance ? p : null;
  }

  /** Rule 1: the direct pair, or the inverse; the later point, the direct one at a tie. */
  private direct(coin: string, currency: string, ms: number): { price: Decimal; ms: number } | null {
    const d = this.latest(coin, currency, ms);
    const i = this.latest(currency, coin, ms);
    if (d && (!i || d.ms >= i.ms)) return { price: d.price, ms: d.ms };
    if (i) return { price: new PRECISE(1).div(i.price), ms: i.ms };
    return null;
  }

  /** The price of 1 coin in currency at the instant, or null (unpriced). */
  price(coin: string, currency: string, ms: number): Decimal | null {
    if (coin === currency) return new Decimal(1);
    const d = this.direct(coin, currency, ms);
    if (d) return d.price;
    const others = [...this.coins].filter((c) => !QUOTES.includes(c)).sort();
    for (const q of [...QUOTES, ...others]) {
      if (q === coin || q === currency) continue;
      const a = this.direct(coin, q, ms);
      if (!a) continue;
      const b = this.direct(q, currency, ms);
      if (b) return a.price.times(b.price);
    }
    return null;
  }

  /** quantity x price at 10 places, half to even (the report's money rounding), or null. */
  value(coin: string, quantity: Decimal, currency: string, ms: number): Decimal | null {
    if (quantity.isZero()) return null;
    const p = this.price(coin, currency, ms);
    return p === null ? null : money(quantity.times(p));
  }

  /** The coins named by any point. */
  pricedCoins(): ReadonlySet<string> {
    return this.coins;
  }
}

export function money(d: Decimal): Decimal {
  return d.toDecimalPlaces(10, Decimal.ROUND_HALF_EVEN);
}
