import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';

import { decodeCoins, encodeCoins } from '../../src/accounting/gains/checkpoint-codec.ts';
import type { GainsEvent } from '../../src/accounting/gains/gains-event.ts';
import { type UkMatch, UkMatcher } from '../../src/accounting/gains/uk-matching.ts';
import { LotEngine, type LotMatch } from '../../src/accounting/lots/lot-engine.ts';
import type { LotMethod } from '../../src/accounting/lots/lot-method.ts';
import type { LedgerEntry } from '../../src/booking/ledger-entry.ts';
import { decimal, text } from '../../src/export/report-definition.ts';
import { deGainRow } from '../../src/export/reports/de-gains.ts';
import { gainRow } from '../../src/export/reports/realized-gains.ts';
import { ukGainRow } from '../../src/export/reports/uk-gains.ts';
import { ReviewAmountCounter } from '../../src/export/review-amounts.ts';
import { entryOn, price, type Side, walkEvents } from './walk-fixtures.ts';

/**
 * A margin `compensate` (coins the exchange paid in, the record not saying why) is an acquisition
 * at market value (TCGA92 s17: treatment-table.ts), flagged for review because its reason could
 * change that treatment (compensation for a loss may be a part disposal of the lost asset, TCGA92
 * s22; or income). The lot it creates carries the doubt: every later row consuming it is flagged
 * `review:compensate-lot`, under every method, as rows consuming a lot of unknown cost are flagged
 * `review:unknown-cost` (docs/reports.md, "Margin and P2P").
 */
function margin(day: number, id: string, type: string, sent: Side, received: Side, extra: Partial<LedgerEntry> = {}) {
  return entryOn(day, `margin:${id}`, `${type} crossed`, 'margin', sent, received, { wallet: 'margin', ...extra });
}

// 1 SOL bought on margin for 100 USDT (SOL 80 GBP); 1 SOL paid in by a `compensate` (SOL 90 GBP),
// flagged by the ledger entry as the cursor reads it; 40 days on both sold for 300 USDT (0.8 GBP).
const history = [
  margin(1, 'b1+margin:b2', 'deal_out / deal_in', ['100', 'USDT'], ['1', 'SOL'], { category: 'trade' }),
  margin(2, 'comp', 'compensate', null, ['1', 'SOL'], { category: 'market', flag: 'review:compensate' }),
  margin(40, 's1+margin:s2', 'deal_out / deal_in', ['2', 'SOL'], ['300', 'USDT'], { category: 'trade' }),
];
const points = [price(1, 'SOL', '80'), price(2, 'SOL', '90'), price(40, 'USDT', '0.8')];

const disposals = <M>(events: GainsEvent<M>[]) => events.flatMap((e) => (e.kind === 'disposal' ? [e] : []));
const soldSol = (events: GainsEvent[]) =>
  disposals(events)
    .filter((e) => e.match.coin === 'SOL')
    .map((e) => `${e.match.quantity.toFixed()} ${e.match.costBasis?.toFixed()} ${e.review ?? 'none'}`);

describe('rows consuming a margin compensate lot are flagged review:compensate-lot', () => {
  it.each<[LotMethod, string[]]>([
    // fifo: the bought lot first, then the compensated one.
    ['fifo', ['1 80 none', '1 90 review:compensate-lot']],
    // lifo: the compensated lot (the newer) first.
    ['lifo', ['1 90 review:compensate-lot', '1 80 none']],
    // hifo: the compensated lot costs more (90 > 80).
    ['hifo', ['1 90 review:compensate-lot', '1 80 none']],
    // average: every unit at the pool's 85; the lots still name which coins left, in queue order.
    ['average', ['1 85 none', '1 85 review:compensate-lot']],
  ])('under %s the part taken from the compensate lot is flagged, the other is not', async (method, expected) => {
    const events = await walkEvents(history, points, new LotEngine(method, 'GBP'));
    expect(soldSol(events)).toEqual(expected);
  });

  it('the realized-gains and de rows carry the flag after the match’s own (a compensated lot is priced: gain stated)', async () => {
    const events = disposals(await walkEvents(history, points, new LotEngine('fifo', 'GBP')));
    const sol = events.filter((e) => e.match.coin === 'SOL');
    const settings = { method: 'fifo', longTermDays: 365, currency: 'GBP', toleranceMs: 0 } as const;
    expect(sol.map((e) => gainRow(e.match, settings, 'UTC', e.review).flag)).toEqual([null, 'review:compensate-lot']);
    // de: the same FIFO lots (§23 EStG; BMF 10.5.2022 Rn. 61), the row flagged alike.
    const row = deGainRow(sol[1]!.match, 'GBP', 'Europe/Berlin', sol[1]!.review);
    expect(row.flag).toBe('review:compensate-lot');
    expect(row.cells).toEqual(expect.arrayContaining(['SOL', '1', '120', '90', '30']));
  });

  it('under uk the compensated SOL joins the section 104 pool, and the s104 part is flagged until the pool is empty (TCGA92 s104; CRYPTO22200)', async () => {
    const later = [
      // The pool is empty after day 40; 1 SOL bought on day 80 and sold on day 120: not flagged.
      margin(80, 'b3+margin:b4', 'deal_out / deal_in', ['100', 'USDT'], ['1', 'SOL'], { category: 'trade' }),
      margin(120, 's3+margin:s4', 'deal_out / deal_in', ['1', 'SOL'], ['150', 'USDT'], { category: 'trade' }),
    ];
    const events = await walkEvents(
      [...history, ...later],
      [...points, price(80, 'SOL', '80'), price(120, 'USDT', '0.8')],
      new UkMatcher('GBP'),
    );
    const sol = disposals(events).filter((e) => e.match.coin === 'SOL');
    expect(
      sol.map((e) => `${e.match.rule} ${e.match.quantity.toFixed()} ${e.match.cost?.toFixed()} ${e.review}`),
    ).toEqual(['s104 2 170 review:compensate-lot', 's104 1 80 undefined']);
    expect(ukGainRow(sol[0]!.match, 'GBP', sol[0]!.review).flag).toBe('review:compensate-lot');
  });

  it('under uk a same-day match with the compensated coins is flagged too (TCGA92 s105(1))', async () => {
    const sameDay = [
      margin(2, 'comp', 'compensate', null, ['1', 'SOL'], { category: 'market', flag: 'review:compensate' }),
      margin(2.1, 's1+margin:s2', 'deal_out / deal_in', ['1', 'SOL'], ['150', 'USDT'], { category: 'trade' }),
    ];
    const events = await walkEvents(sameDay, [price(2, 'SOL', '90'), price(2.1, 'USDT', '0.8')], new UkMatcher('GBP'));
    const sol = disposals<UkMatch>(events).filter((e) => e.match.coin === 'SOL');
    expect(sol.map((e) => `${e.match.rule} ${e.review}`)).toEqual(['same-day review:compensate-lot']);
  });

  it('a stored lot checkpoint keeps the flag: a walk resumed past the compensate still flags the sale', () => {
    const engine = new LotEngine('fifo', 'GBP');
    const atMs = Date.UTC(2026, 0, 1);
    engine.acquire('SOL', d('1'), d('90'), atMs, 'margin:comp', { review: 'review:compensate-lot' });
    const stored = JSON.parse(JSON.stringify(encodeCoins(engine.snapshot()))) as ReturnType<typeof encodeCoins>;
    const resumed = LotEngine.restore('fifo', 'GBP', decodeCoins(stored, engine.snapshot().nextSeq));
    const [match] = resumed.dispose('SOL', d('1'), d('120'), atMs + 1, 'margin:s1');
    expect((match as LotMatch).lotReview).toBe('review:compensate-lot');
    expect(() => decodeCoins([{ ...stored[0]!, lots: [{ ...stored[0]!.lots[0]!, review: 'x' }] }], 1)).toThrow(
      /review/,
    );
  });

  it('the manifest’s reviewAmounts sum the flagged rows’ quantity and proceeds', () => {
    const counter = new ReviewAmountCounter([text('coin'), decimal('quantity'), decimal('proceeds')], {
      coin: 'coin',
      quantity: 'quantity',
      proceeds: 'proceeds',
    });
    counter.add('compensate-lot', ['SOL', '1', '120']);
    counter.add('compensate-lot', ['SOL', '0.5', '60.5']);
    expect(counter.result()).toEqual({
      'compensate-lot': { SOL: { rows: 2, quantity: '1.5', proceeds: '180.5', proceedsMissing: 0 } },
    });
  });
});

const d = (value: string) => new Decimal(value);
