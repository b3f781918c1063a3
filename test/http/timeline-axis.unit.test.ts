import { describe, expect, it } from 'vitest';

import { axisTicks } from '../../src/http/timeline-axis.ts';

describe('the coverage timeline axis', () => {
  it('labels months for a short span, quarters for two years, years for a long one, never more than twelve', () => {
    const months = axisTicks(Date.UTC(2026, 0, 10), Date.UTC(2026, 5, 20));
    expect(months.map((t) => t.label)).toEqual(['Feb 2026', 'Mar 2026', 'Apr 2026', 'May 2026', 'Jun 2026']);
    const quarters = axisTicks(Date.UTC(2025, 1, 3), Date.UTC(2026, 10, 26));
    expect(quarters.map((t) => t.label)).toEqual([
      'Q2 2025',
      'Q3 2025',
      'Q4 2025',
      'Q1 2026',
      'Q2 2026',
      'Q3 2026',
      'Q4 2026',
    ]);
    const years = axisTicks(Date.UTC(2019, 4, 1), Date.UTC(2026, 10, 26));
    expect(years.map((t) => t.label)).toEqual(['2020', '2021', '2022', '2023', '2024', '2025', '2026']);
    for (let days = 1; days < 6000; days += 37) {
      const ticks = axisTicks(Date.UTC(2010, 0, 1), Date.UTC(2010, 0, 1) + days * 86_400_000);
      expect(ticks.length).toBeLessThanOrEqual(12);
      ticks.forEach((t, i) => {
        expect(t.at).toBeGreaterThan(0);
        expect(t.at).toBeLessThan(1);
        if (i > 0) expect(t.at).toBeGreaterThan(ticks[i - 1]!.at);
      });
    }
  });

  it('leaves the label off a tick so near the end that it would run past the bar', () => {
    const ticks = axisTicks(Date.UTC(2026, 0, 1), Date.UTC(2026, 5, 3));
    expect(ticks.at(-1)).toMatchObject({ label: '' });
    expect(ticks.at(-2)!.label).toBe('May 2026');
  });
});
