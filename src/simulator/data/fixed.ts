/**
 * Amounts are kept as integer counts of 1e-8 (held in float64, exact below
 * 2^53), so that balance = previous balance + amount + fee holds to the last
 * digit with plain additions, and columns can live in typed arrays.
 */
export const FIXED_DECIMALS = 8;
export const FIXED_ONE = 100_000_000;

/** Plain decimal text, never an exponent: 150000000 -> "1.5", -5 -> "-0.00000005", 0 -> "0". */
export function formatFixed(units: number): string {
  if (units === 0) return '0';
  const negative = units < 0;
  const digits = String(negative ? -units : units).padStart(FIXED_DECIMALS + 1, '0');
  const whole = digits.slice(0, digits.length - FIXED_DECIMALS);
  let fraction = digits.slice(digits.length - FIXED_DECIMALS);
  let end = fraction.length;
  while (end > 0 && fraction.charCodeAt(end - 1) === 48) end--;
  fraction = fraction.slice(0, end);
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** Integer units of a value with `decimals` decimals, e.g. (12345, 2) -> 123.45 in units. */
export function unitsOf(value: number, decimals: number): number {
  return value * 10 ** (FIXED_DECIMALS - decimals);
}
