import { createHash } from 'node:crypto';

import type { CopyRowSink } from './copy-out-query.ts';
import { encodeCsvRow } from './csv-encoder.ts';
import { type CellKind, FORMULA_CHARACTERS, LEADING_WHITESPACE, neutralizeCell } from './neutralize.ts';

const COMMA = 0x2c;
const QUOTE = 0x22;
const NEWLINE = 0x0a;
const APOSTROPHE = 0x27;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
// Output leaves in blocks of about this size: one write(2) and one hash update per ~8 KB row
// batch cost the export ~0.5 s of system time at a million rows.
const BLOCK_BYTES = 256 * 1024;

// The first byte (UTF-8) of every character a cell neutralizeCell changes can start with: any
// other cell is left as it is without being decoded.
const SUSPECT_FIRST_BYTE = new Uint8Array(256);
for (const c of [...FORMULA_CHARACTERS, ...LEADING_WHITESPACE]) SUSPECT_FIRST_BYTE[Buffer.from(c, 'utf8')[0]!] = 1;

/** What to do with a row whose flag (last field) is set: keep its bytes (the row as written) or drop them. */
export type FlaggedRecordHandler = (flag: string, record: Buffer) => 'keep' | 'drop';

/**
 * Rewrites the rows of `COPY (SELECT cells..., flag) TO STDOUT (FORMAT csv)` into the bytes the
 * Node encoder (csv-encoder.ts, neutralizeCell) writes for the same values, and hashes and counts
 * them as they go into blocks. Per row, one pass over its bytes:
 * - the flag, the last field, is left out; a row with a flag goes to `onFlagged` (counted there,
 *   kept or dropped); COPY writes a NULL flag as nothing, so the common row ends in `,\n`;
 * - an empty string, which COPY quotes (`""`) and csv-stringify writes as nothing, loses its quotes;
 * - a cell whose first byte may start a formula is decoded and given to neutralizeCell itself,
 *   which can only prefix an apostrophe: it goes in front of the value, inside COPY's quotes when
 *   there are any (an apostrophe changes nothing about quoting in either format). A decimal
 *   starting with `-` that is a plain number is recognised on its bytes, without decoding.
 * COPY quotes a field exactly when csv-stringify does once empty strings are taken care of, and
 * writes the rest the same (test/export/copy-path.test.ts holds every SQL report to it byte for
 * byte), so the other bytes pass through unchanged. Memory: one block, whatever the row count.
 */
export class CopyRowRewriter implements CopyRowSink {
  /** Rows written (flag NULL or empty, or kept by onFlagged). */
  records = 0;
  bytes = 0;
  private readonly hash = createHash('sha256');
  private readonly decimal: Uint8Array;
  private block = Buffer.allocUnsafe(BLOCK_BYTES);
  private at = 0;
  private ready: Buffer[] = [];

  constructor(
    private readonly kinds: readonly CellKind[],
    header: Buffer,
    private readonly onFlagged: FlaggedRecordHandler,
  ) {
    this.decimal = Uint8Array.from(kinds, (kind) => (kind === 'decimal' ? 1 : 0));
    this.reserve(header.length);
    this.at += header.copy(this.block, this.at);
  }

  row(buf: Buffer, start: number, end: number): void {
    const last = end - 1;
    if (buf[last] !== NEWLINE) throw new Error('COPY row must end with a newline');
    if (mayHoldUnprintable(buf, start, last) && this.escapedRow(buf, start, last)) return;
    const cells = this.kinds.length;
    // Output is never longer than the row plus one apostrophe per cell.
    this.reserve(end - start + cells);
    const out = this.block;
    const rowStart = this.at;
    let w = rowStart;
    // Bytes from `from` up to the field being read are copied only when a change or the row's end comes.
    let from = start;
    let i = start;
    for (let cell = 0; cell < cells; cell++) {
      // Every cell is followed by a comma (the flag comes last); unquoted, COPY writes none inside.
      let fieldEnd: number;
      if (buf[i] === QUOTE) {
        fieldEnd = closingQuote(buf, i, last) + 1;
        if (fieldEnd === i + 2) {
          // `""`: an empty string, written as nothing.
          w = copyRange(buf, from, i, out, w);
          from = fieldEnd;
        } else if (SUSPECT_FIRST_BYTE[buf[i + 1]!] === 1 && this.needsApostrophe(buf, i, fieldEnd, cell)) {
          w = copyRange(buf, from, i + 1, out, w);
          out[w++] = APOSTROPHE;
          from = i + 1;
        }
      } else {
        fieldEnd = buf.indexOf(COMMA, i);
        if (fieldEnd === -1 || fieldEnd > last) fieldEnd = last;
        else if (SUSPECT_FIRST_BYTE[buf[i]!] === 1 && this.needsApostrophe(buf, i, fieldEnd, cell)) {
          w = copyRange(buf, from, i, out, w);
          out[w++] = APOSTROPHE;
          from = i;
        }
      }
      if (buf[fieldEnd] !== COMMA) throw new Error(`COPY row must have ${cells} cells and a flag: ${cell + 1} found`);
      i = fieldEnd + 1;
    }
    // `i` is the flag's first byte; the comma before it is left out with it.
    w = copyRange(buf, from, i - 1, out, w);
    out[w++] = NEWLINE;
    if (i < last) {
      const flag = fieldValue(buf, i, last);
      if (flag !== '' && this.onFlagged(flag, out.subarray(rowStart, w)) === 'drop') w = rowStart;
      else this.records++;
    } else this.records++;
    this.at = w;
  }

  takeBlocks(): Buffer[] {
    const blocks = this.ready;
    this.ready = [];
    return blocks;
  }

  finish(): Buffer[] {
    this.complete();
    return this.takeBlocks();
  }

  /** The sha256 of every byte given out (call after finish). */
  digest(): string {
    return this.hash.digest('hex');
  }

  /**
   * A row with a cell neutralizeCell escapes (a control character, see neutralize.ts): decoded and
   * written by the Node encoder, as the other path writes it. False (nothing written) when no cell
   * changes that way: the byte rewrite handles the row.
   */
  private escapedRow(buf: Buffer, start: number, last: number): boolean {
    const values: string[] = [];
    let i = start;
    for (let cell = 0; cell < this.kinds.length; cell++) {
      const fieldEnd = buf[i] === QUOTE ? closingQuote(buf, i, last) + 1 : buf.indexOf(COMMA, i);
      if (fieldEnd === -1 || fieldEnd >= last || buf[fieldEnd] !== COMMA) return false;
      values.push(fieldValue(buf, i, fieldEnd));
      i = fieldEnd + 1;
    }
    const cells = values.map((value, cell) => neutralizeCell(value, this.kinds[cell]!));
    if (cells.every((cell, k) => cell === values[k] || cell === `'${values[k]}`)) return false;
    const encoded = Buffer.from(encodeCsvRow(cells), 'utf8');
    const flag = i < last ? fieldValue(buf, i, last) : '';
    if (flag !== '' && this.onFlagged(flag, encoded) === 'drop') return true;
    this.records++;
    this.reserve(encoded.length);
    this.at += encoded.copy(this.block, this.at);
    return true;
  }

  /** Whether neutralizeCell changes the cell at buf[start, end) (quoted or not): it prefixes an apostrophe. */
  private needsApostrophe(buf: Buffer, start: number, end: number, cell: number): boolean {
    const quoted = buf[start] === QUOTE;
    const first = quoted ? start + 1 : start;
    if (this.decimal[cell] === 1 && !quoted && buf[first] === MINUS && isPlainNegativeDecimal(buf, first, end)) {
      return false;
    }
    const value = fieldValue(buf, start, end);
    const neutralized = neutralizeCell(value, this.kinds[cell]!);
    if (neutralized === value) return false;
    // The byte rewrite writes exactly this; anything else would be a new rule in neutralize.ts.
    if (neutralized !== `'${value}`) throw new Error('neutralizeCell must only prefix an apostrophe');
    return true;
  }

  /** Room for `bytes` more in the current block, else it is completed and a new one begun. */
  private reserve(bytes: number): void {
    if (this.block.length - this.at >= bytes) return;
    this.complete();
    this.block = Buffer.allocUnsafe(Math.max(BLOCK_BYTES, bytes));
  }

  private complete(): void {
    if (this.at === 0) return;
    const block = this.block.subarray(0, this.at);
    this.hash.update(block);
    this.bytes += block.length;
    this.ready.push(block);
    this.block = this.block.subarray(this.at);
    this.at = 0;
  }
}

// Shorter runs are copied byte by byte: Buffer#copy costs ~70 ns a call, as much as ~50 bytes in this loop.
const SHORT_COPY = 32;

/** Copies buf[from, to) to out at `w`; returns the offset after it. */
function copyRange(buf: Buffer, from: number, to: number, out: Buffer, w: number): number {
  if (to - from > SHORT_COPY) return w + buf.copy(out, w, from, to);
  for (let k = from; k < to; k++) out[w++] = buf[k]!;
  return w;
}

/** The offset of the quote that closes the quoted field at `open` (COPY doubles the quotes inside). */
function closingQuote(buf: Buffer, open: number, last: number): number {
  let search = open + 1;
  for (;;) {
    const quote = buf.indexOf(QUOTE, search);
    if (quote === -1 || quote >= last) throw new Error('COPY row must close its quoted fields');
    if (buf[quote + 1] !== QUOTE) return quote;
    search = quote + 2;
  }
}

/** The text of the field at buf[start, end), unquoted. */
function fieldValue(buf: Buffer, start: number, end: number): string {
  // Anything after the closing quote, or a comma in an unquoted field (COPY writes none), is a field too many.
  const tooMany = () => new Error('COPY row must end with its flag: more fields found');
  if (buf[start] === QUOTE) {
    if (closingQuote(buf, start, end) !== end - 1) throw tooMany();
    return buf.toString('utf8', start + 1, end - 1).replaceAll('""', '"');
  }
  const value = buf.toString('utf8', start, end);
  if (value.includes(',')) throw tooMany();
  return value;
}

/** neutralize.ts's PLAIN_DECIMAL for a value starting with `-`: -digits, optionally .digits. */
function isPlainNegativeDecimal(buf: Buffer, start: number, end: number): boolean {
  let i = start + 1;
  const integerStart = i;
  while (i < end && buf[i]! >= ZERO && buf[i]! <= NINE) i++;
  if (i === integerStart) return false;
  if (i === end) return true;
  if (buf[i] !== DOT) return false;
  const fractionStart = ++i;
  while (i < end && buf[i]! >= ZERO && buf[i]! <= NINE) i++;
  return i > fractionStart && i === end;
}

/**
 * Whether buf[start, end) may hold a character src/vocabulary/printable-text.ts escapes: a byte below 0x20 or DEL,
 * or the first byte of a C1 control (0xC2), of U+061C (0xD8) or of the U+2000 block's marks (0xE2).
 * Only such rows are decoded.
 */
function mayHoldUnprintable(buf: Buffer, start: number, end: number): boolean {
  for (let k = start; k < end; k++) {
    const b = buf[k]!;
    if (b < 0x20 || b === 0x7f || b === 0xc2 || b === 0xd8 || b === 0xe2) return true;
  }
  return false;
}
