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
  const integral = integralShare(total, part, whole, rounding);
  if (integral !== undefined) return integral;
  const exact = new Exact(total).times(part).div(whole);
  return new Decimal(exact.toDecimalPlaces(rounding.places, rounding.mode));
}

/** A finite value's magnitude as an integer and its decimal places: 12.50 is [1250n, 2]. */
function scaled(value: Decimal): { digits: string; places: number } {
  let text = value.toFixed();
  if (text.startsWith('-')) text = text.slice(1);
  const dot = text.indexOf('.');
  if (dot < 0) return { digits: text, places: 0 };
  return { digits: text.slice(0, dot) + text.slice(dot + 1), places: text.length - dot - 1 };
}

const POWERS: bigint[] = [];
/** 10^n, kept (the walks ask for the same few). */
function tenTo(n: number): bigint {
  return (POWERS[n] ??= 10n ** BigInt(n));
}

/** The most digits the integer numerator may have for the 200-digit quotient to round as the exact one. */
const NUMERATOR_DIGITS = 198;

/**
 * The share in integers (the gains walks' most frequent division: a 200-digit decimal.js quotient
 * costs several times more), or undefined where the 200-digit path must answer (another rounding
 * mode, a zero or non-finite operand, operands too long for the argument below).
 *
 * The same value as that path, sign of a zero included. With total = t/10^a, part = p/10^b,
 * whole = w/10^c, the quotient q differs from a rounding midpoint m at `places` (when not equal to
 * it) by a fraction of denominator 2w x 10^(a+b+places), so by at least 1/(2w x 10^(a+b+places)). The
 * 200-digit path rounds q by at most half a unit in its 200th digit, under |q| x 10^-199, and
 * w x 10^(a+b) x |q| = t x p x 10^c: while t x p x 10^(c+places) has at most NUMERATOR_DIGITS digits,
 * that error is smaller than q's distance to any midpoint, so both round q to the same value (a true
 * midpoint fits in 200 digits, and ties go the same way).
 */
function integralShare(total: Decimal, part: Decimal, whole: Decimal, rounding: ShareRounding): Decimal | undefined {
  const { places, mode } = rounding;
  if (mode !== Decimal.ROUND_HALF_EVEN && mode !== Decimal.ROUND_HALF_UP) return undefined;
  if (!Number.isInteger(places) || places < 0) return undefined;
  if (!total.isFinite() || !part.isFinite() || !whole.isFinite() || whole.isZero()) return undefined;
  const t = scaled(total);
  const p = scaled(part);
  const w = scaled(whole);
  if (t.digits.length + p.digits.length + w.places + places > NUMERATOR_DIGITS) return undefined;
  // q x 10^places as numerator / denominator, both integers.
  const numerator = BigInt(t.digits) * BigInt(p.digits) * tenTo(w.places + places);
  const denominator = BigInt(w.digits) * tenTo(t.places + p.places);
  let quotient = numerator / denominator;
  const twice = 2n * (numerator % denominator);
  if (twice > denominator || (twice === denominator && (mode === Decimal.ROUND_HALF_UP || quotient % 2n === 1n))) {
    quotient += 1n;
  }
  const digits = quotient.toString().padStart(places + 1, '0');
  const text = places === 0 ? digits : `${digits.slice(0, -places)}.${digits.slice(-places)}`;
  // decimal.js signs a product or quotient, zero included, by its operands' signs.
  return new Decimal(total.s * part.s * whole.s < 0 ? `-${text}` : text);
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
