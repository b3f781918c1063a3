import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import {
  KIND_BY_METHOD,
  renderTreatmentBlock,
  REPORTS_DOC,
  TREATMENT_BLOCK,
  treatmentBlockIsCurrent,
} from '../../src/accounting/treatments/treatment-docs.ts';
import { TREATMENT_KINDS, treatmentOf, treatmentsOf } from '../../src/accounting/treatments/treatment-table.ts';
import { SPOT_TAX_TYPES } from '../../src/exchange/spot-tax-types.ts';
import { markedBlock } from '../../src/exchange/tools/doc-blocks.ts';
import { FUTURE_TAX_TYPES } from '../../src/streams/futures-ledger/tax-types.ts';
import { MARGIN_TAX_TYPES, MARGIN_TREATMENTS } from '../../src/streams/margin-ledger/tax-types.ts';
import { P2P_TAX_TYPES, P2P_TREATMENTS } from '../../src/streams/p2p-ledger/tax-types.ts';
import { normalizeBlock } from '../../src/streams/tools/endpoint-table.ts';

describe('the treatment table', () => {
  it('classifies every documented spotTaxType and futureTaxType exactly once', () => {
    expect(Object.keys(treatmentsOf('spot')).sort()).toEqual([...SPOT_TAX_TYPES].sort());
    expect(Object.keys(treatmentsOf('futures')).sort()).toEqual([...FUTURE_TAX_TYPES].sort());
  });

  it('classifies every documented marginTaxType and p2pTaxType exactly once (docs/exchange-api.md §5.8, §5.9)', () => {
    expect(Object.keys(treatmentsOf('margin')).sort()).toEqual([...MARGIN_TAX_TYPES].sort());
    expect(Object.keys(treatmentsOf('p2p')).sort()).toEqual([...P2P_TAX_TYPES].sort());
  });

  it('is the wallet ledgers’ own declaration: the word their reports show is the walk’s kind (margin-ledger, p2p-ledger)', () => {
    // One table per history (issue 42 item 8): the margin file once called interest an
    // "incidental cost" while the walk treated it as a fee paying no trade.
    expect(treatmentsOf('margin')).toBe(MARGIN_TREATMENTS);
    expect(treatmentsOf('p2p')).toBe(P2P_TREATMENTS);
    expect(treatmentOf('margin', 'interest_repay').kind).toBe('other-fee');
    expect(treatmentOf('margin', 'borrow').kind).toBe('borrowing');
    expect(treatmentOf('p2p', 'buy').kind).toBe('deposit');
    const flagged = (ledger: string) =>
      Object.entries(treatmentsOf(ledger))
        .filter(([, t]) => t.review === true)
        .map(([type]) => type);
    expect(flagged('margin')).toEqual(['compensate', 'confiscated']);
    expect(flagged('p2p')).toEqual(['buy', 'sell']);
  });

  it('cites a rule for every margin and P2P row (an HMRC CRYPTO page, TCGA92 or the BMF letter)', () => {
    for (const ledger of ['margin', 'p2p'] as const) {
      for (const [type, treatment] of Object.entries(treatmentsOf(ledger))) {
        expect(`${type}: ${treatment.note ?? ''}`).toMatch(/CRYPTO\d{5}|TCGA92|BMF/);
      }
    }
  });

  it('says for every kind what each method does', () => {
    expect(Object.keys(KIND_BY_METHOD).sort()).toEqual([...TREATMENT_KINDS].sort());
  });

  it('treats the findings as the rules say: fees paying no trade, referral and copy-trading income, rebates', () => {
    for (const type of ['User fees', 'System charges fees', 'Fast withdrawal fee']) {
      expect(treatmentOf('spot', type).kind).toBe('other-fee');
    }
    expect(treatmentOf('spot', 'Transaction fee deduct').kind).toBe('trade-fee');
    expect(treatmentOf('spot', 'Rebate rewards').kind).toBe('income');
    expect(treatmentOf('spot', 'Copy Trade profit').kind).toBe('income');
    expect(treatmentOf('spot', 'Trading fee rebate').kind).toBe('rebate');
    expect(treatmentOf('spot', 'Deposit').kind).toBe('deposit');
    expect(treatmentOf('spot', 'Transfer out').kind).toBe('own-move');
    expect(treatmentOf('futures', 'TRANSFER_IN').kind).toBe('own-move');
    expect(treatmentOf('futures', 'CLOSE_LONG').kind).toBe('market');
  });

  it('is shown in docs/reports.md as generated from the code (regenerate: npm run docs:treatments)', () => {
    const doc = readFileSync(REPORTS_DOC, 'utf8');
    expect(normalizeBlock(markedBlock(doc, TREATMENT_BLOCK))).toEqual(normalizeBlock(renderTreatmentBlock()));
    expect(treatmentBlockIsCurrent(doc)).toBe(true);
  });
});
