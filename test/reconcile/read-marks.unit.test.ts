import { describe, expect, it } from 'vitest';

import { judgeByMarks } from '../../src/reconcile/read-marks.ts';

const stored = (reads: Record<string, string | undefined>) => ({
  keys: new Set(Object.keys(reads)),
  readOf: new Map(Object.entries(reads)),
});

describe("a window's fresh read judged as its own re-count", () => {
  it('agrees when every stored record was met by the read and the read carried as many', () => {
    expect(
      judgeByMarks({ readId: '42', rows: 3, endedAfterFullPage: false }, stored({ a: '42', b: '42', c: '42' })),
    ).toEqual({ agrees: true });
    expect(judgeByMarks({ readId: '7', rows: 0, endedAfterFullPage: false }, stored({}))).toEqual({ agrees: true });
  });

  it('does not agree when a stored record carries an older read: the exchange did not serve it', () => {
    // '9' < '10' as numbers though not as text.
    expect(judgeByMarks({ readId: '10', rows: 2, endedAfterFullPage: false }, stored({ a: '10', b: '9' }))).toEqual({
      agrees: false,
      why: 'not met by the read',
    });
  });

  it('does not agree when the store holds fewer records than the read carried (one lost after the read)', () => {
    expect(judgeByMarks({ readId: '5', rows: 3, endedAfterFullPage: false }, stored({ a: '5', b: '5' }))).toEqual({
      agrees: false,
      why: 'count differs',
    });
  });

  it('leaves to the exchange a window a later read stamped, or whose rows carry no read id', () => {
    expect(judgeByMarks({ readId: '5', rows: 2, endedAfterFullPage: false }, stored({ a: '5', b: '11' }))).toEqual({
      agrees: false,
      why: 'met by a later read',
    });
    expect(judgeByMarks({ readId: '5', rows: 1, endedAfterFullPage: false }, stored({ a: undefined }))).toEqual({
      agrees: false,
      why: 'no read ids',
    });
  });

  it('never agrees for a read that ended on an empty page after a full one: its end is asked of the exchange', () => {
    // Every mark agrees (3 carried, 3 stored, all met by the read): the end is what is in doubt.
    expect(
      judgeByMarks({ readId: '42', rows: 3, endedAfterFullPage: true }, stored({ a: '42', b: '42', c: '42' })),
    ).toEqual({ agrees: false, why: 'ended after a full page' });
  });
});
