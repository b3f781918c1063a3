import { describe, expect, it } from 'vitest';

import { axisLabels } from '../../src/http/balance-chart.ts';

const months = (first: string, count: number) =>
  Array.from({ length: count }, (_, k) => {
    const d = new Date(`${first}-01T00:00:00Z`);
    d.setUTCMonth(d.getUTCMonth() + k);
    return d.toISOString().slice(0, 7);
  });

describe('the balance charts axis labels', () => {
  it('a chart starting in December labels 2026 under January and not 2025 beside it ("20252026")', () => {
    const { yearAt } = axisLabels(months('2025-12', 12), 248 / 12);
    expect([...yearAt]).toEqual([1]);
  });

  it('a chart whose first January is far enough labels the first month with its year too', () => {
    const { yearAt } = axisLabels(months('2025-02', 12), 248 / 12);
    expect([...yearAt].sort((a, b) => a - b)).toEqual([0, 11]);
  });

  it('month names thin out to every 2nd, 3rd... month when the bars are narrower than a name', () => {
    expect(axisLabels(months('2025-01', 12), 20.7).monthEvery).toBe(1);
    expect(axisLabels(months('2025-01', 24), 10.3).monthEvery).toBe(2);
    expect(axisLabels(months('2025-01', 60), 4.1).monthEvery).toBe(6);
  });
});
