import { describe, expect, it } from 'vitest';

import { taxYearsPage } from '../../src/http/filing-page.ts';
import { lackingProceedsSection, unknownCostsSection } from '../../src/http/unknown-costs.ts';

describe('the accountants’ page: what lacks a cost', () => {
  it('lists per coin and method the quantity moved in that no supplied cost in its currency covers, and says so when none lacks one', () => {
    const row = {
      coin: 'ETH',
      deposits: 2,
      movedIn: '3',
      supplied: { uk: '1', de: '3' },
      lacking: { uk: '2', de: '0' },
      arrivalsLacking: { uk: 1, de: 0 },
    };
    const page = String(unknownCostsSection([row], '/supplied/a'));
    expect(page).toContain('<td>ETH</td>');
    expect(page).toContain('<th>Lacking a cost, uk (GBP)</th>');
    expect(page).toContain('<td data-method="uk">2</td>');
    expect(page).toContain('<td data-method="de">0</td>');
    expect(page).toMatch(/<li data-method="uk">\s*uk \(GBP\): 1 arrival of 1 coin lacking a\s+cost\s*<\/li>/);
    expect(page).toMatch(/<li data-method="de">\s*de \(EUR\): 0 arrivals of 0 coins lacking a\s+cost\s*<\/li>/);
    expect(page).toContain('review:unknown-cost');
    expect(page).toContain('href="/supplied/a"');
    expect(String(unknownCostsSection([]))).toContain('Every coin moved in has a supplied cost.');
  });
});

describe('the accountants’ page: what lacks proceeds', () => {
  const sale = { recordId: 'p2p:p4', soldAt: '2025-03-08T10:00:00Z', coin: 'USDT', quantity: '100', suppliedIn: 'GBP' };

  it('lists each P2P sell by the id `proceeds import` takes, with the currencies already supplied', () => {
    const page = String(lackingProceedsSection([sale, { ...sale, recordId: 'p2p:p5', suppliedIn: '' }]));
    expect(page).toContain('<td><code>p2p:p4</code></td>');
    expect(page).toContain('<td>GBP</td>');
    expect(page).toContain('<td>—</td>');
    expect(page).toContain('review:unknown-proceeds');
    expect(page).toContain('ledgerline proceeds import');
    expect(String(lackingProceedsSection([]))).toContain('Every P2P sale has supplied proceeds.');
  });

  it('the tax years page shows the section beside what lacks a cost, saying so when nothing lacks proceeds', () => {
    const view = { account: { id: 'a', name: 'alice' }, uk: [], de: [], unknownCosts: [], now: 0 };
    const context = { csrf: 't', role: 'accountant' as const };
    const page = String(taxYearsPage({ ...view, lackingProceeds: [sale] }, context));
    expect(page).toContain('What lacks proceeds');
    expect(page.indexOf('What lacks a cost')).toBeLessThan(page.indexOf('What lacks proceeds'));
    expect(String(taxYearsPage({ ...view, lackingProceeds: [] }, context))).toContain(
      'Every P2P sale has supplied proceeds.',
    );
  });
});
