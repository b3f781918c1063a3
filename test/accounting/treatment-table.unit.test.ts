import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import {
  KIND_BY_METHOD,
  renderTreatmentBlock,
  REPORTS_DOC,
  TREATMENT_BLOCK,
  treatmentBlockIsCurrent,
} from '../../src/accounting/treatments/treatment-docs.ts';
import { TREATMENT_KINDS, treatmentOf, TREATMENTS } from '../../src/accounting/treatments/treatment-table.ts';
import { SPOT_TAX_TYPES } from '../../src/exchange/spot-tax-types.ts';
import { markedBlock } from '../../src/exchange/tools/doc-blocks.ts';
import { FUTURE_TAX_TYPES } from '../../src/streams/futures-ledger/tax-types.ts';
import { normalizeBlock } from '../../src/streams/tools/endpoint-table.ts';

describe('the treatment table', () => {
  it('classifies every documented spotTaxType and futureTaxType exactly once', () => {
    expect(Object.keys(TREATMENTS.spot).sort()).toEqual([...SPOT_TAX_TYPES].sort());
    expect(Object.keys(TREATMENTS.futures).sort()).toEqual([...FUTURE_TAX_TYPES].sort());
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

  it('is shown in docs/reports.md as generated from the code (regenerate: npx tsx src/accounting/treatments/treatment-docs.ts)', () => {
    const doc = readFileSync(REPORTS_DOC, 'utf8');
    expect(normalizeBlock(markedBlock(doc, TREATMENT_BLOCK))).toEqual(normalizeBlock(renderTreatmentBlock()));
    expect(treatmentBlockIsCurrent(doc)).toBe(true);
  });
});
