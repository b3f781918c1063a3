import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';

import { taxYearsOf } from '../../src/accounting/gains/tax-years.ts';
import type { WrittenReport } from '../../src/demo/demo-exports.ts';
import { taxYearsPeriod } from '../../src/demo/demo-tax-years.ts';
import { taxYearLines } from '../../src/demo/print-tax-years.ts';
import { parsePeriod } from '../../src/export/period.ts';

const utc = (iso: string) => DateTime.fromISO(iso, { zone: 'UTC' }).toMillis();

/** The years a period touches, as the summaries label and mark them. */
function years(method: 'uk' | 'de', period: { from: string; to: string; tz: string }) {
  const p = parsePeriod(period);
  return taxYearsOf(method, p.start.getTime(), p.end.getTime()).map((y) => `${y.label} ${y.complete}`);
}

describe("the demo's tax-year periods (demo-tax-years.ts)", () => {
  // The demo anchored on 28 November 2026, its history read from a year and a day before.
  const day = utc('2026-11-28T00:00:00');
  const covered = utc('2025-11-27T06:10:00');

  it('uk: London dates from the first whole day read to the day before the anchor; both years touched are part-years', () => {
    const period = taxYearsPeriod('uk', covered, day);
    expect(period).toEqual({ from: '2025-11-28', to: '2026-11-27', tz: 'Europe/London' });
    expect(years('uk', period)).toEqual(['2025-26 false', '2026-27 false']);
  });

  it('de: Berlin dates, whose day ends an hour before UTC’s: the last day is the one ending by the anchor', () => {
    const period = taxYearsPeriod('de', covered, day);
    expect(period).toEqual({ from: '2025-11-28', to: '2026-11-27', tz: 'Europe/Berlin' });
    // The period ends at 23:00 UTC on the 27th: never after the anchor, so never past what was read.
    expect(parsePeriod(period).end.getTime()).toBeLessThanOrEqual(day);
    expect(years('de', period)).toEqual(['2025 false', '2026 false']);
  });

  it('a history read from a year’s first instant holds that year whole: complete', () => {
    const period = taxYearsPeriod('de', DateTime.fromISO('2025-01-01', { zone: 'Europe/Berlin' }).toMillis(), day);
    expect(period.from).toBe('2025-01-01');
    expect(years('de', period)).toEqual(['2025 true', '2026 false']);
    const uk = taxYearsPeriod('uk', DateTime.fromISO('2025-04-06', { zone: 'Europe/London' }).toMillis(), day);
    expect(years('uk', uk)).toEqual(['2025-26 true', '2026-27 false']);
  });

  it('a British summer anchor: London’s day starts at 23:00 UTC, the period still ends by the anchor', () => {
    const summer = utc('2026-07-15T00:00:00');
    const period = taxYearsPeriod('uk', utc('2025-07-14T05:00:00'), summer);
    expect(period).toEqual({ from: '2025-07-15', to: '2026-07-14', tz: 'Europe/London' });
    expect(parsePeriod(period).end.getTime()).toBeLessThanOrEqual(summer);
  });
});

describe("the demo's printed tax block (print-tax-years.ts)", () => {
  const base = { rows: 1, unpairedLegs: 0, gap: undefined, csvPath: 'x.csv', review: {} };
  const uk = { from: '2025-11-28', to: '2026-11-27', tz: 'Europe/London' };
  const de = { ...uk, tz: 'Europe/Berlin' };
  const reports: WrittenReport[] = [
    {
      ...base,
      report: 'realized-gains',
      method: 'uk',
      period: uk,
      review: { 'unknown-cost': 869, 'withdrawal-exceeds-holdings': 4 },
    },
    {
      ...base,
      report: 'realized-gains-summary',
      method: 'uk',
      period: uk,
      years: {
        uk: [
          {
            year: '2025-26',
            complete: false,
            disposals: '270',
            proceeds: '265072',
            allowableCosts: '225387',
            gains: '41149',
            losses: '1465',
            unpriced: '224',
            unknownCostProceeds: '464378',
            beyondProceeds: '0',
          },
        ],
      },
    },
    { ...base, report: 'realized-gains', method: 'de', period: de, review: { 'disposal-exceeds-holdings': 26 } },
    {
      ...base,
      report: 'realized-gains-summary',
      method: 'de',
      period: de,
      years: {
        de: [
          {
            year: '2026',
            complete: true,
            proceeds: '3124523',
            costs: '2616875',
            net: '-2223',
            freigrenze: '1000',
            belowFreigrenze: 'yes',
            income: '256',
            belowIncomeFreigrenze: 'no',
            unpriced: '0',
            unknownCostProceeds: '0',
            beyondProceeds: '3954',
          },
        ],
      },
    },
  ];

  it('prints per tax year the SA108 and Anlage SO figures, whether the year is whole, and the flagged rows', () => {
    const lines = taxYearLines(reports);
    const text = lines.join('\n');
    expect(lines[0]).toContain('uk 2025-11-28..2026-11-27 Europe/London');
    expect(text).toContain(
      'uk 2025-26  complete: false  disposals 270, proceeds 265072, allowable costs 225387, gains 41149, losses 1465, net 39684 GBP',
    );
    expect(text).toContain('224 unpriced disposals (unknown-cost proceeds 464378)');
    expect(text).toContain(
      'de 2026     complete: true  §23 private sales net -2223 EUR (proceeds 3124523, costs 2616875), ' +
        'Freigrenze 1000: under it, tax-free; §22 Nr. 3 income 256 EUR, Freigrenze 256: reached, all taxable',
    );
    expect(text).toContain('beyond-holdings proceeds 3954');
    expect(lines.at(-1)).toBe(
      '  flagged rows    realized-gains uk unknown-cost 869, beyond holdings 0, withdrawals beyond holdings 4; ' +
        'de unknown-cost 0, beyond holdings 26, withdrawals beyond holdings 0',
    );
    // Short: a header, two lines a year, one of flagged rows.
    expect(lines).toHaveLength(6);
  });

  it('prints nothing when no rules summary was written', () => {
    expect(taxYearLines(reports.filter((r) => r.report === 'realized-gains'))).toEqual([]);
  });
});
