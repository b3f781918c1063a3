import { describe, expect, it } from 'vitest';

import { parseCostBasis } from '../../src/accounting/cost-basis/cost-basis-import.ts';
import { parseProceeds } from '../../src/accounting/proceeds/proceeds-import.ts';
import type { DemoAccountant } from '../../src/demo/demo-accountant.ts';
import {
  type DemoMove,
  type PriceSeries,
  syntheticCostBasisCsv,
  syntheticProceedsCsv,
} from '../../src/demo/demo-accountant-rule.ts';
import type { WrittenReport } from '../../src/demo/demo-exports.ts';
import type { UkYearFigures } from '../../src/demo/demo-tax-figures.ts';
import { beforeAfterLines } from '../../src/demo/print-accountant.ts';

const ms = (iso: string) => Date.parse(iso);

// BTC at 50,000 USDT from 1 Jan, 60,000 from 2 Jan; USDT at 0.80 GBP and 0.90 EUR, 0.70 GBP from 2 Jan.
const series: PriceSeries = new Map([
  [
    'BTC/USDT',
    [
      { ms: ms('2026-01-01T00:00:00Z'), price: '50000' },
      { ms: ms('2026-01-02T00:00:00Z'), price: '60000' },
    ],
  ],
  [
    'USDT/GBP',
    [
      { ms: ms('2026-01-01T00:00:00Z'), price: '0.80' },
      { ms: ms('2026-01-02T00:00:00Z'), price: '0.70' },
    ],
  ],
  ['USDT/EUR', [{ ms: ms('2026-01-01T00:00:00Z'), price: '0.90' }]],
]);

const move = (recordId: string, coin: string, quantity: string, at: string): DemoMove => ({
  recordId,
  coin,
  quantity,
  atMs: ms(at),
});

describe("the demo's SYNTHETIC accountant files (demo-accountant-rule.ts)", () => {
  it('a coin moved in: acquired 30 days before, for 0.9 x its market value on arrival (price and rate at or before), in GBP and EUR, cents half to even', () => {
    const file = syntheticCostBasisCsv(
      [
        move('1', 'BTC', '0.5', '2026-01-01T12:00:00Z'),
        move('2', 'USDT', '100.000', '2026-01-02T08:00:00Z'),
        // No price for DOGE: left out, its cost stays unknown (never invented).
        move('3', 'DOGE', '10', '2026-01-02T08:00:00Z'),
      ],
      series,
    );
    const rows = parseCostBasis(file.csv);
    expect(rows.map((r) => [r.coin, r.quantity, new Date(r.acquiredAtMs).toISOString(), r.cost, r.currency])).toEqual([
      // 0.5 x 50,000 x 0.80 x 0.9 = 18,000; x 0.90 EUR = 20,250.
      ['BTC', '0.5', '2025-12-02T12:00:00.000Z', '18000.00', 'GBP'],
      ['BTC', '0.5', '2025-12-02T12:00:00.000Z', '20250.00', 'EUR'],
      // USDT is 1 USDT; the GBP rate of 2 Jan (0.70), the EUR one of 1 Jan (the last at or before).
      ['USDT', '100', '2025-12-03T08:00:00.000Z', '63.00', 'GBP'],
      ['USDT', '100', '2025-12-03T08:00:00.000Z', '81.00', 'EUR'],
    ]);
    expect(rows.every((r) => r.source === 'synthetic-demo-accountant' && r.note.startsWith('SYNTHETIC'))).toBe(true);
    expect(file).toMatchObject({ rows: 4, covered: 2, skipped: 1 });
  });

  it('two moves of a coin at one instant are one lot (the import takes no row twice); before the first price, the first one', () => {
    const file = syntheticCostBasisCsv(
      [move('a', 'BTC', '0.1', '2025-12-31T00:00:00Z'), move('b', 'BTC', '0.2', '2025-12-31T00:00:00Z')],
      series,
    );
    const rows = parseCostBasis(file.csv);
    expect(rows.map((r) => [r.quantity, r.cost, r.currency])).toEqual([
      ['0.3', '10800.00', 'GBP'],
      ['0.3', '12150.00', 'EUR'],
    ]);
    expect(rows[0]!.note).toContain('a b');
    expect(file.covered).toBe(2);
  });

  it('a P2P sell: 0.98 x its market value when sold, one row per currency, named as the gains reports name it', () => {
    const file = syntheticProceedsCsv([move('p2p:7', 'BTC', '0.01', '2026-01-03T00:00:00Z')], series);
    const rows = parseProceeds(file.csv);
    // 0.01 x 60,000 x 0.70 x 0.98 = 411.60; x 0.90 x 0.98 = 529.20.
    expect(rows.map((r) => [r.recordId, r.proceeds, r.currency, r.source])).toEqual([
      ['p2p:7', '411.60', 'GBP', 'synthetic-demo-accountant'],
      ['p2p:7', '529.20', 'EUR', 'synthetic-demo-accountant'],
    ]);
  });
});

describe("the demo's before/after block (print-accountant.ts)", () => {
  const period = { from: '2025-11-28', to: '2026-11-27', tz: 'Europe/London' };
  const year = (over: Partial<UkYearFigures>): UkYearFigures => ({
    year: '2025-26',
    complete: false,
    disposals: '268',
    proceeds: '350000',
    allowableCosts: '266510',
    gains: '93696',
    losses: '10207',
    unpriced: '240',
    unknownCostProceeds: '529980',
    beyondProceeds: '0',
    ...over,
  });
  const summary = (csvPath: string, y: UkYearFigures): WrittenReport => ({
    report: 'realized-gains-summary',
    method: 'uk',
    period,
    review: {},
    rows: 23,
    unpairedLegs: 0,
    gap: undefined,
    csvPath,
    years: { uk: [y] },
  });
  const supplied: DemoAccountant = {
    costBasisFile: 'exports/demo-cost-basis-synthetic.csv',
    proceedsFile: 'exports/demo-proceeds-synthetic.csv',
    lots: { covered: 829, skipped: 0 },
    sells: { covered: 14, skipped: 0 },
    lacking: { before: { coins: 7, sells: 14 }, after: { coins: 0, sells: 0 } },
  };

  it('prints each tax year after the supplied costs (once: the figures before are printed above), the unpriced counts, and where each file is', () => {
    const lines = beforeAfterLines(
      [summary('exports/a/before.csv', year({}))],
      [
        summary(
          'exports/after-accountant/a/after.csv',
          year({
            disposals: '508',
            proceeds: '880000',
            allowableCosts: '700000',
            gains: '190000',
            losses: '10000',
            unpriced: '0',
            unknownCostProceeds: '0',
          }),
        ),
      ],
      supplied,
    );
    expect(lines[0]).toContain(
      'SYNTHETIC costs for 829 coins moved in (0 without a price: left unknown), proceeds for 14 P2P sells',
    );
    // The year's figures before are the tax years block's, printed just above: only those after follow.
    expect(lines[1]).toBe(
      '    uk 2025-26  after  disposals 508, proceeds 880000, allowable costs 700000, net 180000 GBP; ' +
        'unpriced 0 (unknown-cost proceeds 0)',
    );
    expect(lines.join('\n')).not.toContain('before disposals');
    expect(lines[2]).toContain(
      "unpriced disposals before: uk 240; after: uk 0; lacking on the accountants' page: coins 7 -> 0, P2P sells 14 -> 0",
    );
    expect(lines[3]).toBe('  before files    exports/a/before.csv (as read: unknown costs flagged)');
    expect(lines[4]).toBe(
      "  after files     exports/after-accountant/a/after.csv (after the accountant's costs and proceeds, SYNTHETIC)",
    );
    expect(lines[5]).toMatch(/^ {2}coins away {6}moves to a strategy, Earn or a lock not back after COINS_AWAY_DAYS/);
    // Issue 42 item 9: the database keeps the figures as read, the synthetic imports withdrawn.
    expect(lines[6]).toMatch(/^ {2}database {8}holds the figures as read: the SYNTHETIC imports were withdrawn/);
    expect(lines).toHaveLength(7);
  });
});
