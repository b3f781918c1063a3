import { describe, expect, it } from 'vitest';

import { unknownCostsSection } from '../../src/http/unknown-costs.ts';

describe('the accountants’ page: what lacks a cost', () => {
  it('lists per coin the quantity moved in that no supplied cost covers, and says so when none lacks one', () => {
    const page = String(unknownCostsSection([{ coin: 'ETH', deposits: 2, movedIn: '3', supplied: '1', lacking: '2' }]));
    expect(page).toContain('<td>ETH</td>');
    expect(page).toContain('<td>2</td>');
    expect(page).toContain('review:unknown-cost');
    expect(String(unknownCostsSection([]))).toContain('Every coin moved in has a supplied cost.');
  });
});
