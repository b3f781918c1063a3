import { Decimal } from 'decimal.js';

/**
 * The two kinds of arithmetic prices need. decimal.js rounds every operation to its constructor's
 * precision (20 significant digits by default), so the book never computes with the shared
 * `Decimal` and converts results back into it only at the end (a constructed Decimal is not rounded).
 *
 * - Products (quantity x price, leg x leg) are exact: 200 significant digits hold the product of any
 *   two numeric(38,18)-sized factors, and of a 28-digit quotient with them, without rounding.
 * - Quotients (an inverted pair's 1/p, a trade's received/sent) cannot be exact in general: they are
 *   rounded to 28 significant digits, half to even (banker's rounding, no drift up or down).
 */
const Exact = Decimal.clone({ precision: 200, rounding: Decimal.ROUND_HALF_EVEN, toExpNeg: -100, toExpPos: 100 });
const Quotient = Decimal.clone({ precision: 28, rounding: Decimal.ROUND_HALF_EVEN, toExpNeg: -100, toExpPos: 100 });

/** Significant digits a quotient is rounded to (half to even). */
export const QUOTIENT_DIGITS = 28;

// A Decimal passed to another clone's constructor is copied digit for digit (no text, no rounding).
// A zero result is handed back as +0, as the text it went through before (no `-0` reaches a caller).
const unsigned = (value: Decimal): Decimal => new Decimal(value.isZero() ? 0 : value);

export function exactProduct(a: Decimal.Value, b: Decimal.Value): Decimal {
  return unsigned(new Exact(a).mul(b));
}

export function roundedQuotient(numerator: Decimal.Value, denominator: Decimal.Value): Decimal {
  return unsigned(new Quotient(numerator).div(denominator));
}
