export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/**
 * First index whose value is >= target, in an ascending array. Every column
 * searched holds integers (ms timestamps, ids), so the first index above t is
 * lowerBound(t + 1): no separate upperBound.
 */
export function lowerBound(values: ArrayLike<number>, target: number, lo = 0, hi = values.length): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid]! < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Same as lowerBound, over positions `index[lo..hi)` into a value column. */
export function lowerBoundVia(
  index: ArrayLike<number>,
  values: ArrayLike<number>,
  target: number,
  lo = 0,
  hi = index.length,
): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[index[mid]!]! < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
