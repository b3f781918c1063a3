import { Transform, type TransformCallback } from 'node:stream';

const COMMA = 0x2c;
const QUOTE = 0x22;
const NEWLINE = 0x0a;
// Output leaves in blocks of about this size. Postgres sends ~8 KB at a time, and one write(2) and
// one hash update per 8 KB cost the export ~0.5 s of system time at a million rows.
const BLOCK_BYTES = 256 * 1024;

/** What to do with a record whose flag (first field) is set: write its remaining bytes or drop them. */
export type FlaggedRecordHandler = (flag: string, record: Buffer) => 'keep' | 'drop';

/**
 * Takes the CSV bytes of `COPY (SELECT flag, cells...) TO STDOUT (FORMAT csv)` and writes each
 * record without its first field. A record whose flag is NULL starts with a comma (COPY writes NULL
 * as nothing) and costs one newline search and one copy; a record with a flag goes to `onFlagged`,
 * which counts it and says whether it stays in the file. Record ends are found by quote parity:
 * COPY quotes a whole field and doubles the quotes inside it, so a newline ends the record exactly
 * when an even number of quotes precedes it in the record. Output is the input minus the flag
 * fields, so memory stays one chunk plus one incomplete record.
 */
export class FlagStripper extends Transform {
  /** Records written (flag NULL, or kept by onFlagged). */
  records = 0;
  private tail: Buffer | undefined;
  private out = Buffer.allocUnsafe(BLOCK_BYTES);
  private written = 0;

  constructor(private readonly onFlagged: FlaggedRecordHandler) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    try {
      const buf = this.tail ? Buffer.concat([this.tail, chunk]) : chunk;
      this.tail = undefined;
      const consumed = this.scan(buf);
      if (consumed < buf.length) this.tail = Buffer.from(buf.subarray(consumed));
      callback();
    } catch (error) {
      callback(error as Error);
    }
  }

  override _flush(callback: TransformCallback): void {
    // COPY ends every record with a newline: bytes left over mean the stream was cut short.
    if (this.tail?.length) return callback(new Error('COPY output ended inside a record'));
    if (this.written > 0) this.push(this.out.subarray(0, this.written));
    callback();
  }

  /** Writes every complete record of `buf`; returns the offset of the first incomplete one. */
  private scan(buf: Buffer): number {
    // Room for all of `buf` (output never exceeds input): a full block is pushed and a new one begun.
    if (this.out.length - this.written < buf.length) {
      if (this.written > 0) this.push(this.out.subarray(0, this.written));
      this.out = Buffer.allocUnsafe(Math.max(BLOCK_BYTES, buf.length));
      this.written = 0;
    }
    const out = this.out;
    let written = this.written;
    let pos = 0;
    let nextQuote = buf.indexOf(QUOTE);
    for (;;) {
      // Find the record's end: the first newline with no open quoted field before it.
      let search = pos;
      let end = -1;
      for (;;) {
        const newline = buf.indexOf(NEWLINE, search);
        if (newline === -1) break;
        if (nextQuote === -1 || nextQuote > newline) {
          end = newline;
          break;
        }
        const close = buf.indexOf(QUOTE, nextQuote + 1);
        if (close === -1) break;
        search = close + 1;
        nextQuote = buf.indexOf(QUOTE, search);
      }
      if (end === -1) break;
      if (buf[pos] === COMMA) {
        written += buf.copy(out, written, pos + 1, end + 1);
        this.records++;
      } else {
        const { flag, cellsStart } = readFlag(buf, pos);
        const record = buf.subarray(cellsStart, end + 1);
        // An empty-string flag (COPY writes `""`) means no flag, as in the Node path.
        if (flag === '' || this.onFlagged(flag, record) === 'keep') {
          written += record.copy(out, written);
          this.records++;
        }
      }
      pos = end + 1;
    }
    this.written = written;
    return pos;
  }
}

/** The first field of the record at `pos`, unquoted, and where the record's cells start. */
function readFlag(buf: Buffer, pos: number): { flag: string; cellsStart: number } {
  if (buf[pos] !== QUOTE) {
    const comma = buf.indexOf(COMMA, pos);
    return { flag: buf.toString('utf8', pos, comma), cellsStart: comma + 1 };
  }
  let i = pos + 1;
  for (;;) {
    const quote = buf.indexOf(QUOTE, i);
    if (buf[quote + 1] === QUOTE) {
      i = quote + 2;
      continue;
    }
    return { flag: buf.toString('utf8', pos + 1, quote).replaceAll('""', '"'), cellsStart: quote + 2 };
  }
}
