/**
 * Spreadsheets execute a cell that starts with = + - @ (and some with a leading tab or carriage
 * return), so a coin name or description such as `=HYPERLINK(...)` from the exchange could run in
 * the accountant's Excel. Text cells starting with one of those get a leading apostrophe (OWASP's
 * advice), which spreadsheets show as text. Decimal cells are left alone when they are a plain
 * number: `-1.5` must stay a number an accountant can sum.
 */
// Also the full-width forms, which some spreadsheets (Apple Numbers) normalise to the ASCII ones.
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;
const PLAIN_DECIMAL = /^-?\d+(\.\d+)?$/;

export type CellKind = 'text' | 'decimal';

export function neutralizeText(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}

export function neutralizeCell(value: string | null | undefined, kind: CellKind): string {
  if (value === null || value === undefined) return '';
  if (kind === 'decimal' && PLAIN_DECIMAL.test(value)) return value;
  // A decimal column that holds anything else (NaN, Infinity, a bad cast) is treated as text.
  return neutralizeText(value);
}
