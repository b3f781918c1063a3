import { Decimal } from 'decimal.js';

/**
 * Lot arithmetic. decimal.js rounds every operation to 20 significant digits by default, so sums and
 * differences of quantities and costs are done in a clone wide enough never to round them (two
 * numeric(38,18)-sized values need at most ~40 digits; 200 leaves room for long sums), and the
 * results are handed back as plain `Decimal`s (constructing one does not round).
 *
 * The only inexact step is a share: the cost of part of a lot (cost x part / whole). It is rounded to
 * COST_PLACES decimal places, half to even, and the remainder stays with what is left, so the cost of
 * a lot is handed out exactly once in total however it is split: no drift.
 */
const Exact = Decimal.clone({ precision: 200, rounding: Decimal.ROUND_HALF_EVEN, toExpNeg: -100, toExpPos: 100 });

/**
 * Decimal places of a value in the valuation currency: a market value (quantity x price) and the
 * cost of part of a lot are rounded to it, half to even. Ten places is far below any currency's
 * smallest unit, and it keeps every printed value within 20 significant digits below 10^10, so a
 * reader checking gain = proceeds - cost_basis with decimal.js's or Python's default precision (20
 * and 28 digits) finds it exact too; unrounded, a price quotient's 28 digits times a quantity
 * gave values of 35 digits.
 */
export const MONEY_PLACES = 10;
/** Decimal places of a cost or proceeds share. */
export const COST_PLACES = MONEY_PLACES;

export const ZERO = new Decimal(0);

// A Decimal passed to another clone's constructor is copied digit for digit (no parsing, no
// rounding), so values cross between the two without a detour through text.
export function plus(a: Decimal, b: Decimal): Decimal {
  return new Decimal(new Exact(a).plus(b));
}

export function minus(a: Decimal, b: Decimal): Decimal {
  return new Decimal(new Exact(a).minus(b));
}

export function times(a: Decimal, b: Decimal): Decimal {
  return new Decimal(new Exact(a).times(b));
}

/** `total x part / whole`, exact when part = whole, else rounded to COST_PLACES places (half even). */
export function share(total: Decimal, part: Decimal, whole: Decimal): Decimal {
  return shareAt(total, part, whole, SHARE_ROUNDING);
}

/** How a share is rounded: decimal places and a decimal.js rounding mode. */
export interface ShareRounding {
  readonly places: number;
  readonly mode: Decimal.Rounding;
}

export const SHARE_ROUNDING: ShareRounding = { places: COST_PLACES, mode: Decimal.ROUND_HALF_EVEN };

/** `share` at another rounding (HMRC's worked examples state costs in whole pounds, half up). */
export function shareAt(total: Decimal, part: Decimal, whole: Decimal, rounding: ShareRounding): Decimal {
  if (part.eq(whole)) return total;
  const exact = new Exact(total).times(part).div(whole);
  return new Decimal(exact.toDecimalPlaces(rounding.places, rounding.mode));
}

/** A value in the valuation currency at MONEY_PLACES places (half even). */
export function money(value: Decimal): Decimal {
  return new Decimal(new Exact(value).toDecimalPlaces(MONEY_PLACES, Decimal.ROUND_HALF_EVEN));
}

/** Whether lot a's unit cost (cost/quantity) is above lot b's, compared without dividing. */
export function unitCostAbove(aCost: Decimal, aQty: Decimal, bCost: Decimal, bQty: Decimal): boolean {
  return times(aCost, bQty).gt(times(bCost, aQty));
}

/** Plain decimal text, never exponent notation. */
export function plain(value: Decimal): string {
  return value.toFixed();
}
