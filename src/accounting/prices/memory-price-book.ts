import { ForwardPriceBook } from './forward-price-book.ts';
import type { PriceBook } from './price-book.ts';
import { checkPoint, type PricePointInput } from './price-point.ts';

/**
 * A PriceBook over points held in memory, with exactly the lookup of openPriceBook (the same
 * ForwardPriceBook): for unit tests and callers that have their prices at hand. Points may come in
 * any order; each is checked (typed errors naming `points[i].field`) before the book exists.
 *
 * `toleranceMs` defaults to 36 hours, the PRICE_TOLERANCE default; `carryMs` to RATE_CARRY_MS.
 */
export function memoryPriceBook(
  currency: string,
  points: readonly PricePointInput[],
  options: { toleranceMs?: number; carryMs?: number } = {},
): PriceBook {
  const checked = points.map((point, index) => checkPoint(`points[${index}]`, point));
  // A stable sort: points of one instant keep their given order; precedence decides among them anyway.
  checked.sort((a, b) => a.atMs - b.atMs);
  let index = 0;
  return new ForwardPriceBook(
    currency,
    options.toleranceMs ?? DEFAULT_TOLERANCE_MS,
    { next: () => Promise.resolve(checked[index++]), close: () => Promise.resolve() },
    options.carryMs,
  );
}

/** 36 hours: a daily close is at most one day old, plus half a day for late or missing publication. */
export const DEFAULT_TOLERANCE_MS = 36 * 60 * 60 * 1000;
