import { describe, expect, it } from 'vitest';

import { REPORTS } from '../../src/export/reports/index.ts';
import { reportOptionStyle } from '../../src/http/report-options.ts';

describe('the request form shows only the fields the chosen report takes', () => {
  const css = reportOptionStyle(REPORTS).text;
  const hides = (report: string, option: string) =>
    new RegExp(
      `option\\[value="${report}"\\]:checked\\)[^{]*\\.option-${option}[,{]|option\\[value="${report}"\\]:checked\\) \\.option-${option}`,
    ).test(css);

  it('hides the lot fields for every report but the realized-gains ones', () => {
    for (const report of REPORTS) {
      expect(hides(report.name, 'lots')).toBe(report.accepts.lots !== true);
      expect(hides(report.name, 'pending')).toBe(!report.accepts.includePending);
      expect(hides(report.name, 'coin')).toBe(!report.accepts.coin);
    }
    expect(hides('realized-gains', 'lots')).toBe(false);
    expect(hides('spot-ledger', 'lots')).toBe(true);
  });

  it('leaves every field shown where the browser cannot tell the choice (no :has)', () => {
    expect(css.startsWith('<style>@supports selector(:has(*)){')).toBe(true);
  });
});
