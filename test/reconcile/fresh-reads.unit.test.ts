import { describe, expect, it } from 'vitest';

import { type AnchorQuery, compareIds, FreshReads } from '../../src/reconcile/fresh-reads.ts';

const record = (id: string, coin: string, ts: number) => ({ id, coin, ts: String(ts) });

const before: AnchorQuery = {
  coin: 'BTC',
  side: 'before',
  startTime: 100,
  endTime: 200,
  idLessThan: '200000',
  storedId: '200000',
};
const after: AnchorQuery = { coin: 'BTC', side: 'after', startTime: 500, endTime: 900, storedId: '500000' };

describe('FreshReads (answers from the window re-reads of one reconciliation)', () => {
  it('orders decimal ids numerically', () => {
    expect(compareIds('99', '100')).toBeLessThan(0);
    expect(compareIds('100', '100')).toBe(0);
    expect(compareIds('101', '100')).toBeGreaterThan(0);
  });

  it('answers an anchor with the newest matching record of its coin, as a request with limit 1 would', () => {
    const fresh = new FreshReads([before, after], []);
    const read = fresh.begin({ start: 0, end: 1_000 });
    for (const r of [
      record('150000', 'BTC', 150),
      record('160000', 'BTC', 160),
      record('170000', 'ETH', 170), // another coin
      record('200000', 'BTC', 200), // not below idLessThan
      record('500000', 'BTC', 500),
      record('700000', 'BTC', 700),
      record('950000', 'BTC', 950), // past endTime
    ]) {
      read.see(r);
    }
    read.complete();
    expect(fresh.anchorAnswer(before)).toEqual({ id: '160000', ts: 160 });
    expect(fresh.anchorAnswer(after)).toEqual({ id: '700000', ts: 700 });
  });

  it('answers "none" only when completed ranges cover the question, and nothing from an unfinished range', () => {
    const fresh = new FreshReads([before, after], []);
    fresh.begin({ start: 0, end: 150 }).complete();
    // [150, 201) is not covered yet: the check must ask the exchange itself.
    expect(fresh.anchorAnswer(before)).toBeUndefined();
    const unfinished = fresh.begin({ start: 150, end: 300 });
    unfinished.see(record('180000', 'BTC', 180));
    expect(fresh.anchorAnswer(before)).toBeUndefined();
    fresh.begin({ start: 150, end: 300 }).complete();
    expect(fresh.anchorAnswer(before)).toBeNull();
    // endTime is inclusive: a range ending at 900 does not cover ts 900.
    fresh.begin({ start: 300, end: 900 }).complete();
    expect(fresh.anchorAnswer(after)).toBeUndefined();
    fresh.begin({ start: 900, end: 901 }).complete();
    expect(fresh.anchorAnswer(after)).toBeNull();
  });

  it('counts the records of a crowded instant from the range holding it, once', () => {
    const fresh = new FreshReads([], [400, 800]);
    const read = fresh.begin({ start: 0, end: 500 });
    for (let i = 0; i < 7; i += 1) read.see(record(String(400_000 + i), 'USDT', 400));
    read.see(record('401000', 'USDT', 401));
    read.complete();
    expect(fresh.countAt(400)).toBe(7);
    expect(fresh.countAt(800)).toBeUndefined();
    // An overlapping range read later does not add to it.
    const again = fresh.begin({ start: 300, end: 900 });
    again.see(record('400000', 'USDT', 400));
    again.complete();
    expect(fresh.countAt(400)).toBe(7);
    expect(fresh.countAt(800)).toBe(0);
  });

  it('ignores items that are not spot records', () => {
    const fresh = new FreshReads([after], [600]);
    const read = fresh.begin({ start: 0, end: 1_000 });
    read.see({ txId: '1', coin: 'BTC', ts: 600 });
    read.see(null);
    read.complete();
    expect(fresh.anchorAnswer(after)).toBeNull();
    expect(fresh.countAt(600)).toBe(0);
  });

  it("answers anchors over ranges a fresh read vouches for: `after` with the coin's stored last record or a newer re-read one, `before` with none or a re-read one", () => {
    const vouched = new FreshReads([before, after], []);
    vouched.vouch({ start: 400, end: 600 });
    expect(vouched.anchorAnswer(after)).toBeUndefined(); // [600, 901) neither vouched nor re-read
    vouched.vouch({ start: 600, end: 1_000 });
    expect(vouched.anchorAnswer(after)).toEqual({ id: '500000', ts: 500 });
    // A `before` question (a record older than the coin's first stored one) over vouched ranges:
    // the exchange served exactly the stored records there, none older than the first: none.
    expect(vouched.anchorAnswer(before)).toBeUndefined(); // [100, 400) not yet vouched
    vouched.vouch({ start: 0, end: 400 });
    expect(vouched.anchorAnswer(before)).toBeNull();
    // Where part of it was re-read, the re-read's answer stands.
    const beforeMixed = new FreshReads([before], []);
    beforeMixed.vouch({ start: 200, end: 1_000 });
    const early = beforeMixed.begin({ start: 0, end: 200 });
    early.see(record('150000', 'BTC', 150)); // on the exchange, older than the first stored record
    early.complete();
    expect(beforeMixed.anchorAnswer(before)).toEqual({ id: '150000', ts: 150 });

    const mixed = new FreshReads([after], []);
    mixed.vouch({ start: 400, end: 600 });
    const read = mixed.begin({ start: 600, end: 1_000 });
    read.see(record('800000', 'BTC', 800)); // on the exchange past the stored last record
    read.complete();
    expect(mixed.anchorAnswer(after)).toEqual({ id: '800000', ts: 800 });
  });
});
