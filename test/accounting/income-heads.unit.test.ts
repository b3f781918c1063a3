import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';

import type { IncomeEvent } from '../../src/accounting/gains/gains-event.ts';
import {
  INCOME_HEAD_REVIEW,
  INCOME_HEADS,
  incomeHeads,
  UNKNOWN_INCOME_HEAD,
} from '../../src/accounting/treatments/income-heads.ts';
import { LEDGERS, treatmentsOf } from '../../src/accounting/treatments/treatment-table.ts';
import { incomeRow } from '../../src/export/reports/income.ts';

/**
 * Issue 42 item 7: each income type's head under uk and de, with its source (docs/reports.md,
 * "Income: heads"), and a review flag where the rules leave the head to the facts.
 */
const event = (spotTaxType: string, recordId = 'spot:1', value: string | null = '10'): IncomeEvent => ({
  kind: 'income',
  atMs: Date.UTC(2026, 0, 5),
  coin: 'USDT',
  quantity: new Decimal('10'),
  value: value === null ? null : new Decimal(value),
  priceSource: value === null ? null : 't',
  spotTaxType,
  recordId,
});

describe('income heads', () => {
  it('every income type of every wallet’s treatment table has its heads declared, none left to the fallback', () => {
    for (const ledger of LEDGERS) {
      for (const [type, treatment] of Object.entries(treatmentsOf(ledger))) {
        if (treatment.kind !== 'income') continue;
        const recordId = ledger === 'spot' ? 'spot:1' : `${ledger}:1`;
        expect(`${ledger}:${type} ${incomeHeads(event(type, recordId)) === UNKNOWN_INCOME_HEAD}`).toBe(
          `${ledger}:${type} false`,
        );
      }
    }
  });

  it('every head cites its rule: HMRC’s manual or the Acts for uk, the EStG or the BMF letter for de', () => {
    for (const [type, heads] of Object.entries(INCOME_HEADS)) {
      expect(`${type}: ${heads.uk.source}`).toMatch(/CRYPTO\d{5}|ITTOIA05|TCGA92/);
      expect(`${type}: ${heads.de.source}`).toMatch(/EStG|BMF/);
    }
  });

  it('a lottery prize is no income under either rule (TCGA92 s51(1); BMF Rz. 70 f.: chance breaks the link to a service), for review', () => {
    const { uk, de } = incomeHeads(event('Lotto rewards'));
    expect([uk.taxable, de.taxable, uk.review, de.review]).toEqual([false, false, true, true]);
  });

  it('the copier’s Copy Trade profit is the result of its own trades, not income for a service: kept out of income, for review', () => {
    const { uk, de } = incomeHeads(event('Copy Trade profit'));
    expect([uk.taxable, de.taxable]).toEqual([false, false]);
    expect(de.head).toContain('§20 (2) Satz 1 Nr. 3');
  });

  it('airdrops, vouchers, activity funds and trial funds are income only for a service (CRYPTO21250; BMF Rz. 70 f.): flagged', () => {
    for (const type of [
      'Airdrop Reward-A',
      'Airdrop Reward-B',
      'Crypto Voucher Distribution',
      'Activity fund',
      'Activity issuance',
      'User contract trial fund',
    ]) {
      const { uk, de } = incomeHeads(event(type));
      expect(`${type} ${uk.review} ${de.review}`).toBe(`${type} true true`);
      expect(uk.source).toContain('CRYPTO21250');
    }
  });

  it('referral rewards are income for a service under both, no review (CRYPTO21200; EStG §22 Nr. 3)', () => {
    const { uk, de } = incomeHeads(event('Rebate rewards'));
    expect([uk.taxable, uk.review, de.taxable, de.review]).toEqual([true, false, true, false]);
  });

  it('a margin system_fee_in is read from the margin table, not spot’s; an unknown type falls back, flagged', () => {
    expect(incomeHeads(event('system_fee_in crossed BTCUSDT', 'margin:9'))).toBe(INCOME_HEADS['margin:system_fee_in']);
    expect(incomeHeads(event('Something new'))).toBe(UNKNOWN_INCOME_HEAD);
    expect(UNKNOWN_INCOME_HEAD.uk.review).toBe(true);
  });

  it('the income report names both heads on each row and flags the ones to review (after unpriced)', () => {
    const lotto = incomeRow(event('Lotto rewards'), 'GBP', 'UTC');
    expect(lotto.cells.slice(-2)).toEqual([
      INCOME_HEADS['spot:Lotto rewards']!.uk.head,
      INCOME_HEADS['spot:Lotto rewards']!.de.head,
    ]);
    expect(lotto.flag).toBe(INCOME_HEAD_REVIEW);
    expect(incomeRow(event('Rebate rewards'), 'GBP', 'UTC').flag).toBeNull();
    expect(incomeRow(event('Lotto rewards', 'spot:2', null), 'GBP', 'UTC').flag).toBe('review:unpriced');
  });
});
