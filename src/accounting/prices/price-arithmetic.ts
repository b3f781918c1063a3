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

export function exactProduct(a: Decimal.Value, b: Decimal.Value): Decimal {
  return new Decimal(new Exact(a.toString()).mul(new Exact(b.toString())).toString());
}

export function roundedQuotient(numerator: Decimal.Value, denominator: Decimal.Value): Decimal {
  return new Decimal(new Quotient(numerator.toString()).div(new Quotient(denominator.toString())).toString());
}
