import { describe, expect, it } from 'vitest';

import { axisFigure, balancesSection, latestCaption } from '../../src/http/balance-chart.ts';

const NOW = Date.UTC(2026, 10, 26, 12);

describe('the balance charts', () => {
  it('say "at the end of" only for a month that is over, "so far" for the current one', () => {
    expect(latestCaption('2026-10', '1.5', NOW)).toBe('1.5 at the end of Oct 2026');
    expect(latestCaption('2026-11', '1.5', NOW)).toBe('1.5 so far in Nov 2026');
    expect(latestCaption('2026-11', '1.5', Date.UTC(2026, 11, 1))).toBe('1.5 at the end of Nov 2026');
  });

  it('label the value axis from the exact decimal, marking a shortened one', () => {
    expect(axisFigure('1.5')).toBe('1.5');
    expect(axisFigure('2.500000000000000001')).toBe('≈2.5');
    expect(axisFigure('-12345.678901')).toBe('≈-12345.67');
    expect(axisFigure('123456789012')).toBe('≈123456789012');
    expect(axisFigure('8498')).toBe('8498');
  });

  it('label both axes: the coin and its scale, each month, and the year', () => {
    const months = ['2025-12', '2026-01', '2026-02'].map((month, k) => ({ month, balance: String(k + 1) }));
    const page = String(balancesSection([{ coin: 'ETH', months }], NOW)).replace(/\s+/g, ' ');
    expect(page).toMatch(/class="axis-title"[^>]*> ETH </);
    expect(page).toMatch(/> 3<\/text>|>3<\/text>/);
    expect(page.match(/class="month"/g)).toHaveLength(3);
    // The year under the first month and under January.
    expect(page).toContain('>2025</text>');
    expect(page).toContain('>2026</text>');
    expect(page).toContain('3 at the end of Feb 2026');
  });
});
