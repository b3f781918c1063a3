import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';

import type { SuppliedLot } from '../../src/accounting/gains/supplied-costs.ts';
import { UkMatcher } from '../../src/accounting/gains/uk-matching.ts';
import type { LotSink } from '../../src/accounting/gains/walk-history.ts';
import type { PricePointInput } from '../../src/accounting/prices/price-point.ts';
import { entryTreatment } from '../../src/accounting/treatments/entry-treatment.ts';
import type { LedgerEntry } from '../../src/booking/ledger-entry.ts';
import { deTaxable } from '../../src/export/reports/de-gains.ts';
import { matchFlag, walletsOf } from '../../src/export/reports/realized-gains.ts';
import { ukMatchFlag } from '../../src/export/reports/uk-gains.ts';
import { brief, DAY, entryOn, fifo, lots, price, type Side, t0, ukMatches, walkEvents } from './walk-fixtures.ts';

/**
 * The margin and P2P rows of the treatment table (docs/reports.md, "Treatments", "Margin and P2P"),
 * walked one by one as the cursor reads them (src/booking/wallet-entries.ts: wallet `margin`/`p2p`,
 * `spotTypes` starting with the record's own type). Each test names the rule it follows.
 */
function margin(day: number, id: string, type: string, sent: Side, received: Side, extra: Partial<LedgerEntry> = {}) {
  return entryOn(day, `margin:${id}`, `${type} crossed`, 'margin', sent, received, { wallet: 'margin', ...extra });
}
function p2p(day: number, id: string, type: string, sent: Side, received: Side) {
  return entryOn(day, `p2p:${id}`, type, 'p2p', sent, received, { wallet: 'p2p' });
}
function spot(day: number, id: string, type: string, category: string, sent: Side, received: Side) {
  return entryOn(day, `spot:${id}`, type, category, sent, received, { wallet: 'spot' });
}

/** The walk's events, with lots supplied by a cost-basis import. */
const walk = <M>(entries: LedgerEntry[], points: PricePointInput[], sink: LotSink<M>, supplied: SuppliedLot[] = []) =>
  walkEvents(entries, points, sink, { supplied });
const ukParts = ukMatches;

/** 1000 USDT bought for 800 GBP on spot, moved to the margin account (own move: the lots stay). */
const funded = [
  spot(0, 'buy', 'Buy', 'trade', ['800', 'GBP'], ['1000', 'USDT']),
  spot(1, 'out', 'Transfer out', 'internal-transfer', ['1000', 'USDT'], null),
  margin(1, 'in', 'transfer_in', null, ['1000', 'USDT']),
];

describe('margin ledger rows', () => {
  it('each margin type is read from its ledger’s own table row, not the spot table', () => {
    expect(entryTreatment(margin(0, 'a', 'interest_repay', ['1', 'USDT'], null)).kind).toBe('other-fee');
    expect(entryTreatment(margin(0, 'a', 'borrow', null, ['1', 'USDT'])).kind).toBe('borrowing');
    expect(entryTreatment(margin(0, 'a', 'confiscated', ['1', 'USDT'], null)).kind).toBe('market');
    expect(entryTreatment(p2p(0, 'a', 'buy', null, ['1', 'USDT'])).kind).toBe('deposit');
    expect(entryTreatment(p2p(0, 'a', 'sell', ['1', 'USDT'], null)).kind).toBe('unknown-proceeds');
    // A type the exchange adds later: at market value (flagged by the entry, marginTaxType=...).
    expect(entryTreatment(margin(0, 'a', 'new_type', ['1', 'USDT'], null)).kind).toBe('market');
  });

  it('a margin trade pair (deal_out + deal_in at one instant) disposes of the coin given and acquires the coin received at one market value (HMRC CRYPTO22100; BMF 10.5.2022 Rn. 54, 58)', async () => {
    const list = await walk(
      [
        ...funded,
        // 500 USDT for 0.01 BTC (BTC at 40,000 GBP): both at 400 GBP; later 0.01 BTC sold on margin for 600 USDT.
        margin(2, 'd1+margin:d2', 'deal_out / deal_in', ['500', 'USDT'], ['0.01', 'BTC'], { category: 'trade' }),
        margin(3, 'd3+margin:d4', 'deal_out / deal_in', ['0.01', 'BTC'], ['600', 'USDT'], { category: 'trade' }),
      ],
      [price(2, 'BTC', '40000'), price(3, 'USDT', '0.8')],
      fifo(),
    );
    expect(lots(list).map(brief)).toEqual([
      // The USDT given: proceeds the BTC's market value 400, cost 500/1000 of 800.
      'USDT 500 400 400',
      // The BTC: acquired at 400; sold for 600 USDT at 0.8 = 480.
      'BTC 0.01 480 400',
    ]);
  });

  it('conversions inside the margin account (exchange_out + exchange_in) are trades too (CRYPTO22100)', async () => {
    const list = await walk(
      [
        ...funded,
        margin(2, 'x1+margin:x2', 'exchange_out / exchange_in', ['100', 'USDT'], ['0.5', 'SOL'], { category: 'trade' }),
      ],
      [price(2, 'SOL', '170')],
      fifo(),
    );
    expect(lots(list).map(brief)).toEqual(['USDT 100 85 80']);
  });

  it('a margin trade leg without its other side is walked at market value, as spot’s unpaired legs are', async () => {
    const list = await walk(
      [...funded, margin(2, 'lone', 'deal_out', ['100', 'USDT'], null, { category: 'trade', flag: 'unpaired-leg' })],
      [price(2, 'USDT', '0.81')],
      fifo(),
    );
    expect(lots(list).map(brief)).toEqual(['USDT 100 81 80']);
  });

  it('interest paid on a margin loan (interest_repay) is a disposal at market value with no further allowable cost: gain = market value - cost (CRYPTO22150, CRYPTO22280)', async () => {
    const list = await walk(
      [...funded, margin(20, 'int', 'interest_repay', ['10', 'USDT'], null)],
      [price(20, 'USDT', '0.85')],
      fifo(),
    );
    // 10 USDT cost 8 GBP, worth 8.5 when paid: a gain of 0.5 (not a loss of 8).
    expect(lots(list).map(brief)).toEqual(['USDT 10 8.5 8']);
  });

  it('a liquidation fee is a disposal at market value too (CRYPTO22150)', async () => {
    const list = await walk(
      [...funded, margin(20, 'liq', 'liquidation_fee', ['4', 'USDT'], null)],
      [price(20, 'USDT', '0.75')],
      fifo(),
    );
    expect(lots(list).map(brief)).toEqual(['USDT 4 3 3.2']);
  });

  it('a margin loan (borrow, repay): the borrowed coins acquired at market value, the repaid ones disposed of at market value (CRYPTO61620, CRYPTO22100; BGB §607; the worked example: borrowed-coins.unit.test.ts)', async () => {
    const entries = [margin(0, 'b', 'borrow', null, ['1000', 'USDT']), margin(9, 'r', 'repay', ['1000', 'USDT'], null)];
    const points = [price(0, 'USDT', '0.8'), price(9, 'USDT', '0.9')];
    const engine = fifo();
    const list = await walk(entries, points, engine);
    // Acquired for 1000 x 0.8, disposed of for 1000 x 0.9: no income, a gain of the difference.
    expect(lots(list).map(brief)).toEqual([`USDT 1000 ${1000 * 0.9} ${1000 * 0.8}`]);
    expect(list.some((e) => e.kind === 'income')).toBe(false);
    expect(engine.held('USDT').toFixed()).toBe('0');
    const uk = new UkMatcher('GBP');
    expect(
      ukParts(await walk(entries, points, uk)).map((m) => [m.rule, m.proceeds?.toFixed(), m.cost?.toFixed()]),
    ).toEqual([['s104', '900', '800']]);
    expect(uk.pool('USDT').quantity.toFixed()).toBe('0');
  });

  it('borrowed coins spent in a margin trade are disposed of against their cost at borrowing (their market value then), the trade at market value', async () => {
    const list = await walk(
      [
        margin(0, 'b', 'borrow', null, ['1000', 'USDT']),
        margin(1, 'd1+margin:d2', 'deal_out / deal_in', ['1000', 'USDT'], ['0.02', 'BTC'], { category: 'trade' }),
      ],
      [price(0, 'USDT', '0.8'), price(1, 'BTC', '40500')],
      fifo(),
    );
    expect(lots(list).map(brief)).toEqual(['USDT 1000 810 800']);
  });

  it('confiscated (taken) is a disposal at market value and compensate (paid in) an acquisition at market value, no income: both for review (docs: the record does not say why)', async () => {
    const list = await walk(
      [
        ...funded,
        margin(2, 'c', 'confiscated', ['5', 'USDT'], null),
        margin(3, 'p', 'compensate', null, ['5', 'USDT']),
        margin(40, 'f', 'liquidation_fee', ['1000', 'USDT'], null),
      ],
      [price(2, 'USDT', '0.7'), price(3, 'USDT', '0.9'), price(40, 'USDT', '0.8')],
      fifo(),
    );
    expect(list.filter((e) => e.kind === 'income')).toEqual([]);
    // The compensated 5 USDT cost 4.5 (their market value), the last lot FIFO consumes.
    expect(lots(list).map(brief)).toEqual(['USDT 5 3.5 4', 'USDT 995 796 796', 'USDT 5 4 4.5']);
  });

  it('a confiscated record’s disposal rows carry its review flag, under fifo at once and under uk when the day is decided', async () => {
    const taken = margin(2, 'c', 'confiscated', ['5', 'USDT'], null, { flag: 'review:confiscated' });
    const points = [price(2, 'USDT', '0.7')];
    const fifoEvents = await walk([...funded, taken], points, fifo());
    expect(fifoEvents.map((e) => (e.kind === 'disposal' ? e.review : 'income'))).toEqual(['review:confiscated']);
    const ukEvents = await walk([...funded, taken], points, new UkMatcher('GBP'));
    expect(ukEvents.map((e) => (e.kind === 'disposal' ? `${e.match.rule} ${e.review}` : 'income'))).toEqual([
      's104 review:confiscated',
    ]);
    // Other disposals are not flagged.
    const fee = margin(3, 'i', 'interest_repay', ['1', 'USDT'], null);
    const plain = await walk([...funded, fee], [price(3, 'USDT', '0.7')], fifo());
    expect(plain.map((e) => (e.kind === 'disposal' ? (e.review ?? 'none') : 'income'))).toEqual(['none']);
  });

  it('system_fee_in is income at market value on receipt (CRYPTO21200; EStG §22 Nr. 3), the lot costing that value', async () => {
    const list = await walk(
      [margin(0, 'sys', 'system_fee_in', null, ['2', 'USDT'])],
      [price(0, 'USDT', '0.8')],
      fifo(),
    );
    expect(list.map((e) => (e.kind === 'income' ? `${e.spotTaxType} ${e.value?.toFixed()}` : 'disposal'))).toEqual([
      'system_fee_in crossed 1.6',
    ]);
  });

  it('transfers between spot and margin keep the lots: nothing realized, the pool unchanged (CRYPTO22150: no disposal without a change of owner)', async () => {
    const uk = new UkMatcher('GBP');
    const back = [
      ...funded,
      margin(2, 'o', 'transfer_out', ['1000', 'USDT'], null),
      spot(2, 'in', 'Transfer in', 'internal-transfer', null, ['1000', 'USDT']),
    ];
    expect(await walk(back, [], uk)).toEqual([]);
    expect([uk.pool('USDT').quantity.toFixed(), uk.pool('USDT').cost?.toFixed()]).toEqual(['1000', '800']);
  });
});

describe('the wallet column', () => {
  it('names the wallets of a disposal’s records in one order (spot, futures, margin, p2p), a closed position as futures', () => {
    expect(walletsOf('margin:1+margin:2')).toBe('margin');
    expect(walletsOf('p2p:9 spot:1+spot:2 margin:3')).toBe('spot+margin+p2p');
    expect(walletsOf('position:7:funding futures:1:fee')).toBe('futures');
    expect(walletsOf('')).toBe('');
  });
});

describe('P2P ledger rows', () => {
  const bought = [
    p2p(0, 'b', 'buy', null, ['2', 'ETH']),
    p2p(1, 'o', 'transfer_out', ['2', 'ETH'], null),
    spot(1, 'i', 'Transfer in', 'internal-transfer', null, ['2', 'ETH']),
    spot(200, 's', 'Sell', 'trade', ['1', 'ETH'], ['3000', 'GBP']),
  ];

  it('a P2P buy is an acquisition of unknown cost and no date (no fiat amount in the record): the sale consuming it is flagged review:unknown-cost, never invented', async () => {
    const [m] = lots(await walk(bought, [price(0, 'ETH', '2000')], fifo()));
    expect([m!.costBasis, m!.acquiredAtMs, matchFlag(m!, null)]).toEqual([null, null, 'review:unknown-cost']);
    const [u] = ukParts(await walk(bought, [price(0, 'ETH', '2000')], new UkMatcher('GBP')));
    expect(ukMatchFlag(u!, null)).toBe('review:unknown-cost');
  });

  it('then priced by `cost-basis import` (a supplied lot): the supplied cost and date, de counting the year from it (EStG §23(1) Nr. 2)', async () => {
    const supplied: SuppliedLot[] = [
      {
        coin: 'ETH',
        quantity: new Decimal('2'),
        acquiredAtMs: t0 - 200 * DAY,
        cost: new Decimal('3600'),
        currency: 'GBP',
        source: 'bank-statement',
      },
    ];
    const [m] = lots(await walk(bought, [], fifo(), supplied));
    expect([m!.costBasis?.toFixed(), m!.acquiredAtMs, matchFlag(m!, 'x')]).toEqual(['1800', t0 - 200 * DAY, null]);
    expect(deTaxable(m!)).toBe(false);
  });

  it('a P2P sell is a disposal whose proceeds are unknown: left empty and flagged review:unknown-proceeds, never the market value', async () => {
    const entries = [
      spot(0, 'buy', 'Buy', 'trade', ['800', 'GBP'], ['1000', 'USDT']),
      spot(1, 'out', 'Transfer out', 'internal-transfer', ['100', 'USDT'], null),
      p2p(1, 'in', 'transfer_in', null, ['100', 'USDT']),
      p2p(2, 'sell', 'sell', ['100', 'USDT'], null),
    ];
    const [m] = lots(await walk(entries, [price(2, 'USDT', '0.8')], fifo()));
    expect(brief(m!)).toBe('USDT 100 - 80 review:unknown-proceeds');
    const [u] = ukParts(await walk(entries, [price(2, 'USDT', '0.8')], new UkMatcher('GBP')));
    expect([u!.rule, u!.proceeds, u!.cost?.toFixed(), ukMatchFlag(u!, null)]).toEqual([
      's104',
      null,
      '80',
      'review:unknown-proceeds',
    ]);
  });

  it('then priced by `proceeds import` (from the bank statement, CRYPTO22100: the consideration received): those proceeds under every method, only in their own currency', async () => {
    const entries = [
      spot(0, 'buy', 'Buy', 'trade', ['800', 'GBP'], ['1000', 'USDT']),
      spot(1, 'out', 'Transfer out', 'internal-transfer', ['100', 'USDT'], null),
      p2p(1, 'in', 'transfer_in', null, ['100', 'USDT']),
      p2p(2, 'sell', 'sell', ['100', 'USDT'], null),
    ];
    const points = [price(2, 'USDT', '0.8')];
    const sale = (currency: string) => ({
      recordId: 'p2p:sell',
      proceeds: new Decimal('85'),
      currency,
      source: 'bank-statement',
    });
    const [m] = lots(await walkEvents(entries, points, fifo(), { proceeds: [sale('GBP')] }));
    expect([brief(m!), m!.disposalRecordIds]).toEqual(['USDT 100 85 80', 'p2p:sell<bank-statement']);
    const [u] = ukParts(await walkEvents(entries, points, new UkMatcher('GBP'), { proceeds: [sale('GBP')] }));
    expect([u!.rule, u!.proceeds?.toFixed(), u!.cost?.toFixed(), ukMatchFlag(u!, '5')]).toEqual([
      's104',
      '85',
      '80',
      null,
    ]);
    // Euros do not state a walk in pounds: nothing converted, the proceeds stay unknown.
    const [e] = lots(await walkEvents(entries, points, fifo(), { proceeds: [sale('EUR')] }));
    expect(brief(e!)).toBe('USDT 100 - 80 review:unknown-proceeds');
  });
});
