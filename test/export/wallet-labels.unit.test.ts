import { describe, expect, it } from 'vitest';

import { COINTRACKING_TYPES } from '../../src/export/reports/cointracking.ts';
import { REPORTS } from '../../src/export/reports/index.ts';
import { KOINLY_LABELS } from '../../src/export/reports/koinly.ts';
import { WALLET_LEDGERS, walletFacts } from '../../src/streams/registry.ts';

/**
 * Issue 35: each wallet ledger of the registry (margin, P2P) is a wallet of the tax files: a
 * Koinly file of its own and an Exchange of CoinTracking's, every record labelled by its
 * treatment in each tool's words (a treatment neither names would be written as `unmapped`).
 */
describe('the wallet ledgers in the tax-tool files', () => {
  it('names every treatment a wallet ledger declares in Koinly and CoinTracking', () => {
    for (const stream of WALLET_LEDGERS) {
      for (const treatment of new Set(Object.values(walletFacts(stream).treatments).map((t) => t.kind))) {
        expect(Object.hasOwn(KOINLY_LABELS.byTreatment, treatment), `Koinly: ${stream} ${treatment}`).toBe(true);
        expect(Object.hasOwn(COINTRACKING_TYPES.byTreatment, treatment), `CoinTracking: ${stream} ${treatment}`).toBe(
          true,
        );
      }
    }
  });

  it('gives each wallet ledger a Koinly file reading its stream and spot, and CoinTracking every wallet', () => {
    expect(WALLET_LEDGERS).toEqual(['margin-ledger', 'p2p-ledger']);
    for (const stream of WALLET_LEDGERS) {
      const koinly = REPORTS.find((r) => r.name === `koinly-${walletFacts(stream).label}`);
      expect(koinly?.streams, stream).toEqual(['spot', stream]);
      expect(REPORTS.find((r) => r.name === 'cointracking')?.streams).toContain(stream);
    }
    expect(REPORTS.map((r) => r.name)).toEqual(expect.arrayContaining(['koinly-margin', 'koinly-p2p']));
  });
});
