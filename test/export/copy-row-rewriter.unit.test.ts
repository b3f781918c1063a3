import { createHash } from 'node:crypto';

import { describe, expect, it } from 'vitest';

import { CopyRowRewriter, type FlaggedRecordHandler } from '../../src/export/copy-row-rewriter.ts';
import { encodeCsvRow } from '../../src/export/csv-encoder.ts';
import { type CellKind, neutralizeCell } from '../../src/export/neutralize.ts';

/**
 * A field as `COPY ... (FORMAT csv)` writes it (copyto.c, CopyAttributeOutCSV): NULL as nothing,
 * quoted when empty or holding the delimiter, a quote, CR or LF. test/export/copy-path.test.ts
 * checks the rewriter against Postgres' own bytes.
 */
function copyField(value: string | null): string {
  if (value === null) return '';
  return value === '' || /[,"\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

const copyRow = (cells: (string | null)[], flag: string | null = null) =>
  `${[...cells, flag].map(copyField).join(',')}\n`;

// What the Node encoder writes for the same values: the reference.
const nodeRow = (cells: (string | null)[], kinds: CellKind[]) =>
  encodeCsvRow(cells.map((c, i) => neutralizeCell(c, kinds[i]!)));

function rewrite(kinds: CellKind[], rows: string[], onFlagged: FlaggedRecordHandler = () => 'keep') {
  const rewriter = new CopyRowRewriter(kinds, Buffer.from('h\n'), onFlagged);
  const blocks: Buffer[] = [];
  for (const row of rows) {
    // Each row inside a larger buffer, as it sits in a socket chunk.
    const bytes = Buffer.from(`xx${row}yy`, 'utf8');
    rewriter.row(bytes, 2, bytes.length - 2);
    blocks.push(...rewriter.takeBlocks());
  }
  blocks.push(...rewriter.finish());
  const out = Buffer.concat(blocks);
  return { out, blocks, text: out.toString('utf8'), rewriter, sha256: rewriter.digest() };
}

// A deterministic generator, so a failure can be reproduced.
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

const ALPHABET = [
  'a',
  '7',
  '.',
  '-',
  '=',
  '+',
  '@',
  ' ',
  '\t',
  '\r',
  '\n',
  ',',
  '"',
  "'",
  '\u00A0',
  '\u3000',
  '＝',
  'é',
  '🚀',
];
const KINDS: CellKind[] = ['text', 'decimal', 'text', 'decimal', 'text'];

describe('CopyRowRewriter', () => {
  it('writes what the Node encoder writes for the same values: formulas, plain decimals, empty and NULL cells', () => {
    const next = random(29);
    const pick = () => ALPHABET[Math.floor(next() * ALPHABET.length)]!;
    const values = Array.from({ length: 4_000 }, () =>
      KINDS.map(() => {
        const roll = next();
        if (roll < 0.1) return null;
        if (roll < 0.2) return '';
        if (roll < 0.35) return `-${Math.floor(next() * 1000)}${next() < 0.5 ? `.${Math.floor(next() * 100)}` : ''}`;
        return Array.from({ length: 1 + Math.floor(next() * 5) }, pick).join('');
      }),
    );
    const { text, rewriter, sha256, out } = rewrite(
      KINDS,
      values.map((cells) => copyRow(cells)),
    );
    expect(text).toBe(`h\n${values.map((cells) => nodeRow(cells, KINDS)).join('')}`);
    expect(rewriter.records).toBe(values.length);
    expect(rewriter.bytes).toBe(out.length);
    expect(sha256).toBe(createHash('sha256').update(out).digest('hex'));
    // The cases the rules turn on, among them.
    expect(text).toContain(",'=");
    expect(text).toMatch(/(^|,)-\d+(\.\d+)?(,|\n)/m);
    // A control character (a line break among them) is escaped, never written raw inside a cell.
    expect(text).toMatch(/\\n/);
    expect(text.split('\n')).toHaveLength(values.length + 2);
  });

  it('leaves the flag out, drops or keeps flagged rows as told, and hands over the row as written', () => {
    const kinds: CellKind[] = ['text', 'text', 'decimal'];
    const flags: string[] = [];
    const side: string[] = [];
    const { text, rewriter } = rewrite(
      kinds,
      [
        copyRow(['1', 'plain', '-1.5']),
        copyRow(['2', 'dropped', '0'], 'omitted:futures-transfer'),
        copyRow(['3', 'multi\nline, "quoted"', null]),
        copyRow(['4', '=x\r\ny', '1'], 'unmapped=a,"b"\nc'),
        copyRow(['5', 'é✓🚀', '7'], 'unpaired-leg'),
        copyRow(['6', 'empty flag', '1'], ''),
      ],
      (flag, record) => {
        flags.push(flag);
        if (flag.startsWith('omitted:')) return 'drop';
        if (flag === 'unpaired-leg') side.push(record.toString('utf8'));
        return 'keep';
      },
    );
    expect(text).toBe(
      [
        'h\n',
        '1,plain,-1.5\n',
        '3,"multi\\nline, ""quoted""",\n',
        "4,'=x\\r\\ny,1\n",
        '5,é✓🚀,7\n',
        '6,empty flag,1\n',
      ].join(''),
    );
    // An empty flag is no flag, as in the Node path.
    expect(flags).toEqual(['omitted:futures-transfer', 'unmapped=a,"b"\nc', 'unpaired-leg']);
    expect(side).toEqual(['5,é✓🚀,7\n']);
    expect(rewriter.records).toBe(5);
  });

  it('gives out blocks of about 256 KB, whatever the number of rows', () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => copyRow([String(i), `coin ${i}`, '-0.5']));
    const { blocks, out } = rewrite(['text', 'text', 'decimal'], rows);
    expect(blocks.length).toBeGreaterThan(1);
    expect(blocks.length).toBeLessThan(Math.ceil(out.length / 200_000) + 1);
    for (const block of blocks.slice(0, -1)) expect(block.length).toBeGreaterThan(250_000);
  });

  it('refuses a row that does not have the cells and the flag the report declares', () => {
    const kinds: CellKind[] = ['text', 'text'];
    expect(() => rewrite(kinds, ['a,\n'])).toThrow('2 cells and a flag: 2 found');
    expect(() => rewrite(kinds, ['"a\nb",\n'])).toThrow('2 cells and a flag: 2 found');
    expect(() => rewrite(kinds, ['a,b,c,\n'])).toThrow('more fields');
    expect(() => rewrite(kinds, ['a,b,"c",flag\n'])).toThrow('more fields');
    expect(() => rewrite(kinds, ['a,b,'])).toThrow('newline');
  });
});
