import { describe, expect, it } from 'vitest';

import { GAINS_METHODS } from '../../src/accounting/gains/gains-method.ts';
import { reportFor } from '../../src/export/reports/index.ts';
import { WALLET_LEDGERS } from '../../src/streams/registry.ts';

/**
 * Issues 33/34: the gains walk reads the ledger entries of every wallet (spot, futures, and each
 * wallet ledger of the registry), so every report made from it, under every method's variant,
 * declares those streams: an export then checks their coverage and refuses or marks a period
 * with a gap in any of them, instead of silently changing lots, pools and gains.
 */
describe('the streams the gains reports declare', () => {
  const walked = ['spot', 'futures-ledger', ...WALLET_LEDGERS];

  for (const name of ['realized-gains', 'realized-gains-summary', 'income', 'income-summary']) {
    it(`${name}, under every method, declares spot, the futures ledger and every wallet ledger`, () => {
      for (const method of [undefined, ...GAINS_METHODS]) {
        expect(reportFor(name, method).streams, `${name} ${method ?? '(no method)'}`).toEqual(walked);
      }
    });
  }

  it('keeps the spot-only reports on spot (balances and the beancount journal read spot records only)', () => {
    expect(reportFor('balances', undefined).streams).toEqual(['spot']);
    expect(reportFor('beancount', undefined).streams).toEqual(['spot']);
  });
});
