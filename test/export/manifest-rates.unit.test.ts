import { describe, expect, it } from 'vitest';

import { RATE_CARRY_DAYS } from '../../src/accounting/prices/rate-carry.ts';
import { parseExportRequest } from '../../src/export/export-request.ts';
import { buildManifest } from '../../src/export/manifest.ts';

const ACCOUNT = { id: '00000000-0000-4000-8000-000000000001', name: 'a' };
const RESULT = {
  rowCount: 0,
  bytes: 0,
  sha256: '',
  unmapped: { rows: 0, values: {} },
  unpairedLegs: 0,
  omitted: { rows: 0, values: {} },
  review: { rows: 0, values: {} },
  openingBalances: null,
  reviewAmounts: null,
};

function manifest(report: string, valuationCurrency?: string) {
  const request = parseExportRequest({ report, accountId: ACCOUNT.id, from: '2026-04-01', to: '2026-04-30' });
  return buildManifest({
    request,
    title: report,
    columns: [],
    valuationCurrency,
    account: ACCOUNT,
    file: 'x.csv',
    unpairedFile: null,
    coverage: null,
    result: RESULT,
    generatedAt: new Date(0),
  });
}

// Issue 42 item 5: the manifest of every export that values coins says how days without a
// published rate are valued, and how far back at most.
describe('the manifest states the rule for days without a rate', () => {
  it('in every valuing export: the last rate on or before the day, at most four days back', () => {
    const stated = manifest('realized-gains', 'GBP').parameters.ratesOnDaysWithoutOne;
    expect(stated?.maxDaysBack).toBe(RATE_CARRY_DAYS);
    expect(stated?.maxDaysBack).toBe(4);
    expect(stated?.rule).toMatch(/on or before the day, at most 4 days back/);
    expect(stated?.rule).toMatch(/~carried/);
  });

  it('not in an export that values nothing', () => {
    expect(manifest('spot-ledger').parameters.ratesOnDaysWithoutOne).toBeUndefined();
  });
});
