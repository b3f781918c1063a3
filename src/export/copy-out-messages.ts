/**
 * Splits the bytes Postgres sends during `COPY ... TO STDOUT` into its protocol messages and hands
 * each row to `onRow`, without a Buffer object per row: `onRow` gets the socket chunk and the row's
 * offsets in it. The protocol sends one CopyData message per row ("zero or more CopyData messages
 * (always one per row)", Frontend/Backend Protocol, COPY Operations), so a row never has to be
 * found by scanning for its newline. A message cut by a socket read is completed from the next
 * chunk: only that message's bytes are copied, never the chunk.
 *
 * The copy ends at CopyDone, or at an ErrorResponse; the bytes from there on (CommandComplete,
 * ReadyForQuery, the error) belong to node-postgres' parser and are returned as `rest`.
 */
const COPY_DATA = 0x64; // 'd'
const COPY_DONE = 0x63; // 'c'
const ERROR_RESPONSE = 0x45; // 'E'
// CopyOutResponse, and what the server may send at any time: notices, parameter changes,
// notifications. Nothing for the file.
const PASSING = new Set([0x48, 0x4e, 0x53, 0x41]); // 'H', 'N', 'S', 'A'
// Code byte and Int32 length.
const HEADER_BYTES = 5;

export interface CopyOutEnd {
  kind: 'done' | 'error';
  /** The bytes after CopyDone, or from the error's first byte on: node-postgres' to parse. */
  rest: Buffer;
}

export class CopyOutMessages {
  // The start of a message the last chunk cut, in pieces (a long row can span many chunks).
  private pieces: Buffer[] = [];
  private pieceBytes = 0;

  constructor(private readonly onRow: (buf: Buffer, start: number, end: number) => void) {}

  /** Takes the next socket chunk; returns how the copy ended once it has, else null (more to come). */
  feed(chunk: Buffer): CopyOutEnd | null {
    let pos = 0;
    if (this.pieceBytes > 0) {
      pos = this.completeCutMessage(chunk);
      if (pos < 0) return null;
      const message = Buffer.concat(this.pieces);
      this.pieces = [];
      this.pieceBytes = 0;
      if (this.message(message, 0, message.length)) return { kind: 'done', rest: chunk.subarray(pos) };
    }
    while (pos < chunk.length) {
      // An error is node-postgres' to parse, from its first byte, even before its length has arrived.
      if (chunk[pos] === ERROR_RESPONSE) return { kind: 'error', rest: chunk.subarray(pos) };
      if (chunk.length - pos < HEADER_BYTES) break;
      const end = pos + 1 + chunk.readUInt32BE(pos + 1);
      if (end > chunk.length) break;
      if (this.message(chunk, pos, end)) return { kind: 'done', rest: chunk.subarray(end) };
      pos = end;
    }
    if (pos < chunk.length) {
      this.pieces.push(chunk.subarray(pos));
      this.pieceBytes = chunk.length - pos;
    }
    return null;
  }

  /**
   * Adds the start of `chunk` to the cut message (never an error: feed hands those over whole);
   * returns the offset in `chunk` right after the message once it is whole, or -1 when `chunk`
   * ended first (all of it kept).
   */
  private completeCutMessage(chunk: Buffer): number {
    let pos = 0;
    if (this.pieceBytes < HEADER_BYTES) {
      // The length is not known yet: first complete the header.
      pos = Math.min(HEADER_BYTES - this.pieceBytes, chunk.length);
      this.pieces = [Buffer.concat([...this.pieces, chunk.subarray(0, pos)])];
      this.pieceBytes += pos;
      if (this.pieceBytes < HEADER_BYTES) return -1;
    }
    const total = 1 + this.pieces[0]!.readUInt32BE(1);
    const take = Math.min(total - this.pieceBytes, chunk.length - pos);
    this.pieces.push(chunk.subarray(pos, pos + take));
    this.pieceBytes += take;
    return this.pieceBytes < total ? -1 : pos + take;
  }

  /** One whole message at buf[start, end): a row goes to onRow; true at the end of the copy. */
  private message(buf: Buffer, start: number, end: number): boolean {
    const code = buf[start]!;
    if (code === COPY_DATA) this.onRow(buf, start + HEADER_BYTES, end);
    else if (code === COPY_DONE) return true;
    // A statement that is not COPY ... TO STDOUT answers otherwise: fail rather than wait forever.
    else if (!PASSING.has(code))
      throw new Error(`COPY TO STDOUT expected, the server answered '${String.fromCharCode(code)}'`);
    return false;
  }
}
