import { printable } from '../vocabulary/printable-text.ts';

/**
 * Spreadsheets execute a cell that starts with = + - @ (and some with a leading tab or carriage
 * return), so a coin name or description such as `=HYPERLINK(...)` from the exchange could run in
 * the accountant's Excel. Spreadsheets also skip whitespace before a formula (` =1+1` runs as
 * `=1+1` in LibreOffice's import and in Excel after a trim), so the test is: any run of leading
 * whitespace, then one of those characters. Such text cells get a leading apostrophe (OWASP's
 * advice), which spreadsheets show as text. Decimal cells are left alone when they are a plain
 * number: `-1.5` must stay a number an accountant can sum.
 *
 * The COPY path calls neutralizeCell too, on the cells whose first byte is that of a character in
 * the two lists below (copy-row-rewriter.ts); test/export/copy-path.test.ts compares it with the
 * Node encoder cell by cell on Postgres' own COPY output.
 */
// Also the full-width forms, which some spreadsheets (Apple Numbers) normalise to the ASCII ones.
export const FORMULA_CHARACTERS = ['=', '+', '-', '@', '\t', '\r', '\uFF1D', '\uFF0B', '\uFF0D', '\uFF20'] as const;
// What JavaScript's \s matches, written out so that the COPY path can tell a cell that may start
// with it by its first byte.
export const LEADING_WHITESPACE = [
  ' ',
  '\t',
  '\n',
  '\v',
  '\f',
  '\r',
  '\u00A0',
  '\u1680',
  ...Array.from({ length: 0x200a - 0x2000 + 1 }, (_v, i) => String.fromCodePoint(0x2000 + i)),
  '\u2028',
  '\u2029',
  '\u202F',
  '\u205F',
  '\u3000',
  '\uFEFF',
] as const;

/** A bracket expression of `characters`, every one as a \uXXXX escape. */
function bracketOf(characters: readonly string[]): string {
  return `[${characters.map((c) => `\\u${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`).join('')}]`;
}

const FORMULA_START = new RegExp(`^${bracketOf(LEADING_WHITESPACE)}*${bracketOf(FORMULA_CHARACTERS)}`);
const PLAIN_DECIMAL = /^-?\d+(\.\d+)?$/;

export type CellKind = 'text' | 'decimal';

export function neutralizeText(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}

/**
 * A cell as the CSV files write it. Control characters the exchange sent (ESC, a line break, C1
 * controls, bidirectional overrides) are escaped as the terminal shows them (`\x1b`, `\n`,
 * `\u202e`: src/vocabulary/printable-text.ts), so no cell can fake a row or recolour a `cat` of the file
 * (issue 34); the stored record keeps them exactly, in `raw`. Then formulas are neutralized.
 */
export function neutralizeCell(value: string | null | undefined, kind: CellKind): string {
  if (value === null || value === undefined) return '';
  if (kind === 'decimal' && PLAIN_DECIMAL.test(value)) return value;
  // A decimal column that holds anything else (NaN, Infinity, a bad cast) is treated as text.
  return neutralizeText(printable(value));
}
