import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { SHARE_ROUNDING, shareAt, type ShareRounding } from '../../src/accounting/lots/lot-arithmetic.ts';
import { exactProduct, roundedQuotient } from '../../src/accounting/prices/price-arithmetic.ts';

/*
 * The share and the price products are computed without 200-digit decimal.js division or a detour
 * through text: every result must be the one the 200-digit path gave, digit for digit and sign of a
 * zero included (a -0 prints as 0 but is negative to isNegative()).
 */
const Exact = Decimal.clone({ precision: 200, rounding: Decimal.ROUND_HALF_EVEN, toExpNeg: -100, toExpPos: 100 });
const Quotient = Decimal.clone({ precision: 28, rounding: Decimal.ROUND_HALF_EVEN, toExpNeg: -100, toExpPos: 100 });

function referenceShare(total: Decimal, part: Decimal, whole: Decimal, rounding: ShareRounding): Decimal {
  if (part.eq(whole)) return total;
  return new Decimal(new Exact(total).times(part).div(whole).toDecimalPlaces(rounding.places, rounding.mode));
}
const referenceProduct = (a: Decimal.Value, b: Decimal.Value) =>
  new Decimal(new Exact(a.toString()).mul(new Exact(b.toString())).toString());
const referenceQuotient = (a: Decimal.Value, b: Decimal.Value) =>
  new Decimal(new Quotient(a.toString()).div(new Quotient(b.toString())).toString());

/** The same Decimal: sign, exponent and digits. */
const shape = (a: Decimal) => ({ s: a.s, e: a.e, d: [...a.d] });
const expectSame = (actual: Decimal, expected: Decimal) => expect(shape(actual)).toEqual(shape(expected));

/** A numeric(38,18)-shaped value: up to 20 integer digits, up to 18 places, either sign. */
const value = fc
  .tuple(
    fc.boolean(),
    fc.bigInt({ min: 0n, max: 10n ** 20n - 1n }),
    fc.integer({ min: 0, max: 18 }),
    fc.bigInt({ min: 0n, max: 10n ** 18n - 1n }),
  )
  .map(([negative, whole, places, fraction]) => {
    const digits = places === 0 ? '' : `.${(fraction % 10n ** BigInt(places)).toString().padStart(places, '0')}`;
    return new Decimal(`${negative ? '-' : ''}${whole}${digits}`);
  });
const rounding = fc.oneof(
  fc.constant(SHARE_ROUNDING),
  fc.record({
    places: fc.integer({ min: 0, max: 12 }),
    mode: fc.constantFrom<Decimal.Rounding>(Decimal.ROUND_HALF_EVEN, Decimal.ROUND_HALF_UP),
  }),
);

describe('shareAt', () => {
  it('rounds as the 200-digit quotient does, for any numeric(38,18) operands', () => {
    fc.assert(
      fc.property(value, value, value, rounding, (total, part, whole, r) => {
        fc.pre(!whole.isZero());
        expectSame(shareAt(total, part, whole, r), referenceShare(total, part, whole, r));
      }),
      { numRuns: 5000 },
    );
  });

  it('breaks exact ties half to even, or half up (away from zero), as asked', () => {
    const even = { places: 0, mode: Decimal.ROUND_HALF_EVEN };
    const up = { places: 0, mode: Decimal.ROUND_HALF_UP };
    const d = (v: string) => new Decimal(v);
    expect(shareAt(d('5'), d('1'), d('2'), even).toFixed()).toBe('2');
    expect(shareAt(d('7'), d('1'), d('2'), even).toFixed()).toBe('4');
    expect(shareAt(d('5'), d('1'), d('2'), up).toFixed()).toBe('3');
    expect(shareAt(d('-5'), d('1'), d('2'), up).toFixed()).toBe('-3');
    expect(shareAt(d('1'), d('1'), d('3'), SHARE_ROUNDING).toFixed()).toBe('0.3333333333');
    expect(shareAt(d('2'), d('1'), d('3'), SHARE_ROUNDING).toFixed()).toBe('0.6666666667');
  });

  it('keeps the sign of a share rounded to zero, as decimal.js does', () => {
    const tiny = shareAt(new Decimal('-0.00000000001'), new Decimal('1'), new Decimal('3'), SHARE_ROUNDING);
    expect(tiny.isZero() && tiny.isNegative()).toBe(true);
    const zero = shareAt(new Decimal('0'), new Decimal('-1'), new Decimal('3'), SHARE_ROUNDING);
    expectSame(zero, referenceShare(new Decimal('0'), new Decimal('-1'), new Decimal('3'), SHARE_ROUNDING));
  });

  it('answers operands too long for the integer path as the 200-digit path does', () => {
    const long = new Decimal(`1${'7'.repeat(110)}.5`);
    const whole = new Decimal(`3${'1'.repeat(95)}`);
    expectSame(shareAt(long, long, whole, SHARE_ROUNDING), referenceShare(long, long, whole, SHARE_ROUNDING));
  });
});

describe('exactProduct and roundedQuotient', () => {
  const operand = fc.oneof(
    value,
    value.map((v) => v.toFixed()),
    fc.integer({ min: -1_000_000, max: 1_000_000 }),
    fc.constant('-0'),
    fc.constant(new Decimal('1e-30')),
  );
  it('give the values the text round trip gave, a zero always unsigned', () => {
    fc.assert(
      fc.property(operand, operand, (a, b) => {
        expectSame(exactProduct(a, b), referenceProduct(a, b));
        fc.pre(!new Decimal(b).isZero());
        expectSame(roundedQuotient(a, b), referenceQuotient(a, b));
      }),
      { numRuns: 5000 },
    );
  });
});
