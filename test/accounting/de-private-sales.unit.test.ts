import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';

import {
  belowFreigrenze,
  daysHeld,
  deYear,
  privateSalesFreigrenze,
  taxableSale,
} from '../../src/accounting/gains/de-private-sales.ts';

const berlin = (local: string) => new Date(`${local}+01:00`).getTime();

describe('section 23 EStG: the one-year holding period and the Freigrenze', () => {
  it('a sale on the same date a year later is still within the year; a day later it is not', () => {
    expect(taxableSale(berlin('2022-03-15T09:00:00'), berlin('2023-03-15T23:00:00'))).toBe(true);
    expect(taxableSale(berlin('2022-03-15T09:00:00'), berlin('2023-03-16T00:30:00'))).toBe(false);
    expect(daysHeld(berlin('2022-03-15T09:00:00'), berlin('2023-03-16T00:30:00'))).toBe(366);
  });

  it('bought on 29 February, the year ends on 28 February (section 188 (3) BGB)', () => {
    expect(taxableSale(berlin('2024-02-29T12:00:00'), berlin('2025-02-28T12:00:00'))).toBe(true);
    expect(taxableSale(berlin('2024-02-29T12:00:00'), berlin('2025-03-01T12:00:00'))).toBe(false);
  });

  it('counts Berlin dates: 23:30 UTC on 31 December is already the next year in Germany', () => {
    expect(deYear(new Date('2023-12-31T23:30:00Z').getTime())).toBe(2024);
  });

  it('EUR 600 up to 2023, EUR 1,000 from 2024; a total reaching the limit is no longer below it', () => {
    expect(privateSalesFreigrenze(2023)).toBe(600);
    expect(privateSalesFreigrenze(2024)).toBe(1000);
    expect(belowFreigrenze(new Decimal('599.99'), 600)).toBe(true);
    expect(belowFreigrenze(new Decimal('600'), 600)).toBe(false);
  });
});
