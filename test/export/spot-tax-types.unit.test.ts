import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { ACCOUNTING_CATEGORIES, UNMAPPED_CATEGORY } from '../../src/booking/categories.ts';
import { bookingArrays, bookingOf, SPOT_TAX_TYPES } from '../../src/booking/spot-bookings.ts';
import { labelsOf } from '../../src/booking/tax-tool-labels.ts';
import { SPOT_TAX_TYPES as CLIENT_SPOT_TAX_TYPES } from '../../src/exchange/spot-tax-types.ts';
import { EXCHANGE_API_DOC, fencedLines, markedBlock } from '../../src/exchange/tools/doc-blocks.ts';
import { COINTRACKING_TYPES } from '../../src/export/reports/cointracking.ts';
import { REPORTS } from '../../src/export/reports/index.ts';
import { KOINLY_LABELS } from '../../src/export/reports/koinly.ts';
import { SPOT_TAX_TYPES as SIMULATOR_SPOT_TAX_TYPES } from '../../src/simulator/data/spot-tax-types.ts';
import { REPORT_NAMES } from '../../src/vocabulary/report-names.ts';

const koinly = (type: string) => labelsOf(KOINLY_LABELS, type);
const coinTracking = (type: string) => labelsOf(COINTRACKING_TYPES, type);

// The documented list (docs/exchange-api.md §8.4), one value per line of a fenced block: the
// repository alone is enough to check the code tables against the contract.
function specSpotTaxTypes(): string[] {
  return fencedLines(markedBlock(readFileSync(EXCHANGE_API_DOC, 'utf8'), 'spot-tax-types'));
}

describe('spotTaxType booking table', () => {
  it("has exactly the spec's values, no more, no fewer", () => {
    const spec = specSpotTaxTypes();
    expect(spec).toHaveLength(80);
    expect(new Set(spec).size).toBe(spec.length);
    expect(Object.keys(SPOT_TAX_TYPES).sort()).toEqual([...spec].sort());
    // The client's list, which ingestion flags unlisted values by, keeps the documented order too.
    expect([...CLIENT_SPOT_TAX_TYPES]).toEqual(spec);
    // The simulator keeps its own copy (it must not share the client's code): both follow the spec.
    expect([...SIMULATOR_SPOT_TAX_TYPES].sort()).toEqual([...spec].sort());
  });

  it('books every spec value into a real category, never into unmapped', () => {
    for (const type of specSpotTaxTypes()) {
      const booking = bookingOf(type);
      expect(ACCOUNTING_CATEGORIES).toContain(booking.category);
      expect(booking.category).not.toBe(UNMAPPED_CATEGORY);
    }
  });

  it('books a value outside the table as unmapped, including prototype names and case variants', () => {
    for (const type of ['Brand new type', 'deposit', 'toString', '__proto__', '']) {
      expect(bookingOf(type).category).toBe(UNMAPPED_CATEGORY);
    }
  });

  it('gives Koinly labels and CoinTracking types that fit the direction of the record', () => {
    // Koinly's tag list: deposit tags for coins in, withdrawal tags for coins out.
    const incoming = new Set([
      '',
      'Airdrop',
      'Reward',
      'Income',
      'Lending interest',
      'Fee refund',
      'Cashback',
      'Remove from Pool',
    ]);
    const outgoing = new Set(['', 'Cost', 'Loan fee', 'Add to Pool']);
    for (const type of [...Object.keys(SPOT_TAX_TYPES), 'Brand new type']) {
      expect(incoming.has(koinly(type).in), `${type} in`).toBe(true);
      expect(outgoing.has(koinly(type).out), `${type} out`).toBe(true);
      expect(coinTracking(type).in).not.toMatch(/Fee|Expense|Withdrawal|Spend/);
      expect(coinTracking(type).out).not.toMatch(/Income|Reward|Airdrop|^Deposit$/);
    }
    expect(koinly('Airdrop Reward-A').in).toBe('Airdrop');
    // Moves that keep ownership are pool moves in Koinly, never disposals.
    for (const type of ['User lock-up', 'Subscribe', 'Delegate', 'Withdraw to strategy account']) {
      expect(koinly(type).out, type).toBe('Add to Pool');
    }
    for (const type of ['Unlock locked order', 'Redemption', 'Undelegate', 'Deposit from strategy account']) {
      expect(koinly(type).in, type).toBe('Remove from Pool');
    }
    expect(coinTracking('Transaction fee deduct').out).toBe('Other Fee');
    expect(bookingOf('Buy').category).toBe('trade');
  });

  it('flags for review exactly the bookings the spec does not settle, each with its reason', () => {
    const flagged = Object.entries(SPOT_TAX_TYPES).filter(([, booking]) => booking.review !== undefined);
    expect(flagged.map(([type]) => type).sort()).toEqual(
      [
        'Copy Trade profit',
        'Decrease due to ETF settlement',
        'Deduction of judicial recall',
        'Failed',
        'Forced liquidation return',
        'Increase due to ETF settlement',
        'Judicial recall',
        'User contract simulation fund',
        'User contract trial fund',
      ].sort(),
    );
    for (const [type, booking] of flagged) expect(booking.review!.length, type).toBeGreaterThan(20);
    // Decided, not flagged: rebates and refunds lower costs, negative interest is a borrowing cost.
    expect(koinly('Trading fee rebate').in).toBe('Fee refund');
    expect(coinTracking('Refund Copy Trade commission').in).toBe('Income (non taxable)');
    expect([koinly('Interest').out, coinTracking('Interest').out]).toEqual(['Loan fee', 'Borrowing Fee']);
  });

  it('passes the same table to SQL as parallel arrays', () => {
    const arrays = bookingArrays();
    expect(arrays.types).toHaveLength(80);
    const i = arrays.types.indexOf('Interest');
    expect([arrays.categories[i], arrays.omitted[i], arrays.review[i]]).toEqual(['income', false, false]);
    const transfer = arrays.types.indexOf('Transfer out');
    // A move to or from futures is a row on both wallets now (docs/reports.md, "Two wallets"): nothing is left out.
    expect([arrays.categories[transfer], arrays.omitted[transfer]]).toEqual(['internal-transfer', false]);
    expect(arrays.omitted.every((omitted) => !omitted)).toBe(true);
  });

  it('lists the same report names in the registry and in the config-facing list', () => {
    expect(REPORTS.map((r) => r.name)).toEqual([...REPORT_NAMES]);
  });
});
