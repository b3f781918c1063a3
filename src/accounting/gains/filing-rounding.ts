import { Decimal } from 'decimal.js';

/**
 * Whole units for a return's boxes. The exact figures (10 places) stay in the summaries' other
 * rows; the filing rows round each year's exact SUM once (never each disposal), in the taxpayer's
 * favour, which is what the forms allow:
 *
 * - UK (SA108 "Capital gains summary", read with the SA100 return's own rule "enter your figures
 *   in whole pounds – ignore the pence; round down income and round up expenses and tax paid"):
 *   disposal proceeds and gains are rounded DOWN, allowable costs and losses UP.
 * - DE (Anlage SO; the forms take whole euros, "Cent-Beträge zu Ihren Gunsten runden"): receipts
 *   and a gain are rounded down, costs up; a loss (a negative gain) is rounded down too, which
 *   makes it larger, also in the taxpayer's favour.
 *
 * A Freigrenze is decided on the exact figure, never on a rounded one (600.00 reaches EUR 600;
 * 599.99 does not, although both print as 599 or 600 depending on the direction).
 */
export type FilingRounding = 'down' | 'up';

export const UK_FILING_ROUNDING_RULE =
  'whole pounds, pence ignored in the taxpayer’s favour: proceeds and gains rounded down, allowable costs and losses rounded up (SA100 “round down income and round up expenses”; SA108 boxes take whole pounds)';

export const DE_FILING_ROUNDING_RULE =
  'whole euros, cents in the taxpayer’s favour: receipts and gains rounded down (a loss therefore up in size), costs rounded up (Anlage SO takes whole euros)';

/** The whole number a box takes: `down` toward minus infinity, `up` toward plus infinity. */
export function wholeUnits(value: Decimal, direction: FilingRounding): string {
  const whole = value.toDecimalPlaces(0, direction === 'down' ? Decimal.ROUND_FLOOR : Decimal.ROUND_CEIL);
  // -0 would print as "0" anyway; say it plainly.
  return whole.isZero() ? '0' : whole.toFixed(0);
}
