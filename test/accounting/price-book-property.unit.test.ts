import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { PREFERRED_QUOTES } from '../../src/accounting/prices/latest-prices.ts';
import { memoryPriceBook } from '../../src/accounting/prices/memory-price-book.ts';
import { exactProduct, roundedQuotient } from '../../src/accounting/prices/price-arithmetic.ts';

/*
 * The book against a brute-force reading of the documented rules (docs/reports.md, "Prices and
 * valuation") over the whole list of points at every lookup: nearest point at or before the
 * instant per ordered pair (trade first, then source a-z at one instant), within the tolerance,
 * direct or inverted (the later; direct at a tie), else one quote in the documented order; an
 * imported rate of a fiat pair carried past the tolerance, for less than the carry (rate-carry.ts).
 */
const COINS = ['BTC', 'ETH', 'USDT', 'EUR', 'ZZZ'];
const SOURCES = ['trade', 'alpha', 'beta'];
const TOLERANCE = 50;
/** The rate carry, shortened to the test's scale: an imported rate of a fiat pair (EUR) lasts longer. */
const CARRY = 90;
const FIAT = new Set(['EUR']);

interface Point {
  at: number;
  base: string;
  quote: string;
  price: string;
  source: string;
}

const rank = (source: string) => (source === 'trade' ? '0' : `1${source}`);

function latest(points: Point[], base: string, quote: string, at: number): Point | undefined {
  let best: Point | undefined;
  for (const p of points) {
    if (p.base !== base || p.quote !== quote || p.at > at) continue;
    if (best === undefined || p.at > best.at || (p.at === best.at && rank(p.source) < rank(best.source))) best = p;
  }
  return best;
}

function leg(points: Point[], from: string, to: string, at: number) {
  const carried = (p: Point) => p.source !== 'trade' && (FIAT.has(p.base) || FIAT.has(p.quote));
  const fresh = (p: Point | undefined) =>
    p !== undefined && (at - p.at <= TOLERANCE || (carried(p) && at - p.at < CARRY)) ? p : undefined;
  const label = (p: Point) =>
    `${p.source === 'trade' ? 'trade' : `import:${p.source}`}${at - p.at > TOLERANCE ? '~carried' : ''}`;
  const direct = fresh(latest(points, from, to, at));
  const inverse = fresh(latest(points, to, from, at));
  if (direct && (!inverse || direct.at >= inverse.at))
    return { price: new Decimal(direct.price), at: direct.at, source: label(direct) };
  if (inverse) return { price: roundedQuotient(1, inverse.price), at: inverse.at, source: label(inverse) };
  return null;
}

function oracle(points: Point[], coin: string, currency: string, at: number) {
  if (coin === currency) return { price: '1', source: 'par' };
  const direct = leg(points, coin, currency, at);
  if (direct) return { price: direct.price.toString(), source: direct.source, at: direct.at };
  const seen = points.filter((p) => p.at <= at);
  const linked = (a: string) =>
    new Set(seen.flatMap((p) => (p.base === a ? [p.quote] : p.quote === a ? [p.base] : [])));
  const left = linked(coin);
  const right = linked(currency);
  const order = (c: string) => (PREFERRED_QUOTES.includes(c) ? PREFERRED_QUOTES.indexOf(c) : PREFERRED_QUOTES.length);
  const quotes = [...left]
    .filter((q) => right.has(q) && q !== coin && q !== currency)
    .sort((a, b) => order(a) - order(b) || (a < b ? -1 : 1));
  for (const q of quotes) {
    const first = leg(points, coin, q, at);
    const second = first && leg(points, q, currency, at);
    if (first && second) {
      return {
        price: exactProduct(first.price, second.price).toString(),
        source: `${first.source}*${second.source}`,
        at: Math.min(first.at, second.at),
      };
    }
  }
  return null;
}

const pointArb = fc
  .record({
    at: fc.integer({ min: 0, max: 60 }).map((n) => n * 2),
    base: fc.constantFrom(...COINS),
    quote: fc.constantFrom(...COINS),
    price: fc.integer({ min: 1, max: 99_999 }).map((n) => (n / 100).toString()),
    source: fc.constantFrom(...SOURCES),
  })
  .filter((p) => p.base !== p.quote);

describe('memoryPriceBook (property)', () => {
  it('gives what the documented rules give, read by brute force over all points', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(pointArb, { maxLength: 40 }),
        fc.array(fc.record({ at: fc.integer({ min: 0, max: 200 }), coin: fc.constantFrom(...COINS) }), {
          minLength: 1,
          maxLength: 20,
        }),
        fc.constantFrom('USDT', 'EUR', 'BTC'),
        async (points, asks, currency) => {
          // One point per (pair, instant, source), as the table's natural key guarantees.
          const unique = [...new Map(points.map((p) => [`${p.base}/${p.quote}@${p.at}:${p.source}`, p])).values()];
          const book = memoryPriceBook(
            currency,
            unique.map((p) => ({ ...p, at: new Date(p.at) })),
            { toleranceMs: TOLERANCE, carryMs: CARRY },
          );
          for (const ask of [...asks].sort((a, b) => a.at - b.at)) {
            const got = await book.value(ask.coin, new Decimal(3), new Date(ask.at));
            const want = oracle(unique, ask.coin, currency, ask.at);
            if (want === null) {
              expect(got).toBeNull();
            } else {
              expect(got?.price.toString()).toBe(want.price);
              expect(got?.source).toBe(want.source);
              expect(got?.value.toString()).toBe(exactProduct(3, want.price).toString());
              if (want.at !== undefined) expect(got?.priceAt.getTime()).toBe(want.at);
            }
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
