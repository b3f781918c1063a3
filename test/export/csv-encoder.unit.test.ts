import { stringify } from 'csv-stringify/sync';
import { describe, expect, it } from 'vitest';

import { encodeCsvHeader, encodeCsvRow } from '../../src/export/csv-encoder.ts';
import { neutralizeCell } from '../../src/export/neutralize.ts';

const ALPHABET = ['a', 'Z', '0', '9', '.', '-', ' ', ',', '"', '\n', '\r', '=', '+', '@', '\t', 'Ⓜ', "'", ';', '|'];

// A deterministic generator, so a failure can be reproduced.
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('CSV encoding', () => {
  it('writes every row exactly as csv-stringify does, plain or needing quotes', () => {
    const next = random(7);
    for (let n = 0; n < 5_000; n++) {
      const cells = Array.from({ length: 1 + Math.floor(next() * 12) }, () =>
        Array.from({ length: Math.floor(next() * 6) }, () => ALPHABET[Math.floor(next() * ALPHABET.length)]).join(''),
      );
      expect(encodeCsvRow(cells)).toBe(stringify([cells], { record_delimiter: 'unix', eof: true, quoted_match: /\r/ }));
    }
    expect(encodeCsvRow(['a,b', 'say "hi"', 'x'])).toBe('"a,b","say ""hi""",x\n');
    expect(encodeCsvRow(['', '-1.5', ''])).toBe(',-1.5,\n');
    expect(encodeCsvHeader(['Date', 'Sent Amount'])).toBe('Date,Sent Amount\n');
  });

  it('quotes a cell holding a lone carriage return, which readers take as a line break', () => {
    expect(encodeCsvRow(['abc\rdef', 'x'])).toBe('"abc\rdef",x\n');
    expect(encodeCsvRow(["'\r=1"])).toBe('"\'\r=1"\n');
  });

  it('neutralizes formula starts in text cells, including full-width ones, and keeps plain decimals', () => {
    expect(
      ['=1+1', '+1', '-x', '@A1', '\tx', '\rx', '＝1', '＋1', '－1', '＠A'].map((v) => neutralizeCell(v, 'text')),
    ).toEqual(["'=1+1", "'+1", "'-x", "'@A1", '\\tx', '\\rx', "'＝1", "'＋1", "'－1", "'＠A"]);
    expect(['-1.5', '0.000100', '12', '-0'].map((v) => neutralizeCell(v, 'decimal'))).toEqual([
      '-1.5',
      '0.000100',
      '12',
      '-0',
    ]);
    // A decimal column that does not hold a plain number is treated as text.
    expect(['-Infinity', '-1e5', '=1'].map((v) => neutralizeCell(v, 'decimal'))).toEqual([
      "'-Infinity",
      "'-1e5",
      "'=1",
    ]);
    expect(['-1.5', 'BTC', ''].map((v) => neutralizeCell(v, 'text'))).toEqual(["'-1.5", 'BTC', '']);
    expect(neutralizeCell(null, 'decimal')).toBe('');
  });

  it('escapes control characters from the exchange as the terminal shows them: no cell fakes a row or starts a formula', () => {
    expect(
      ['\t=cmd', ' \t=x', '\n=1', 'a\u001b[31mred', 'two\r\nlines', 'rtl\u202etxt', 'c1\u0085x', 'BTC é'].map((v) =>
        neutralizeCell(v, 'text'),
      ),
    ).toEqual(['\\t=cmd', ' \\t=x', '\\n=1', 'a\\x1b[31mred', 'two\\r\\nlines', 'rtl\\u202etxt', 'c1\\x85x', 'BTC é']);
    expect(encodeCsvRow([neutralizeCell('x\ny', 'text'), '1'])).toBe('x\\ny,1\n');
  });

  it('neutralizes a formula start behind leading whitespace, which spreadsheets skip', () => {
    const hostile = [' =1+1', '  +cmd', ' -x', ' @SUM(A1)', '\u00A0=1', '\u3000=1', '\uFEFF=1', ' \uFF1D1'];
    expect(hostile.map((v) => neutralizeCell(v, 'text'))).toEqual(hostile.map((v) => `'${v}`));
    // A decimal column holding a padded number is not a plain number: treated as text like the rest.
    expect([' -1.5', ' 1.5', '-1.5'].map((v) => neutralizeCell(v, 'decimal'))).toEqual(["' -1.5", ' 1.5', '-1.5']);
    // Whitespace before anything else is left as it is.
    expect([' lead', '  ', ' ', ' 1=1', 'a =1'].map((v) => neutralizeCell(v, 'text'))).toEqual([
      ' lead',
      '  ',
      ' ',
      ' 1=1',
      'a =1',
    ]);
  });
});
