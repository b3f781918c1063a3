import { describe, expect, it } from 'vitest';

import { CopyOutMessages } from '../../src/export/copy-out-messages.ts';

function message(code: string, body: Buffer | string = ''): Buffer {
  const payload = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const header = Buffer.alloc(5);
  header.write(code, 0, 'latin1');
  header.writeUInt32BE(payload.length + 4, 1);
  return Buffer.concat([header, payload]);
}

const ROWS = ['1,plain,\n', '2,"multi\nline, ""quoted""",x\n', `3,${'long '.repeat(400)},\n`, '4,é✓🚀,\n'];
// CopyOutResponse (format, column count, column formats), rows, a notice between them, CopyDone.
const COPY = Buffer.concat([
  message('H', Buffer.from([0, 0, 2, 0, 0, 0, 0])),
  message('d', ROWS[0]),
  message('d', ROWS[1]),
  message('N', 'SNOTICE\0Mwatch out\0\0'),
  message('d', ROWS[2]),
  message('d', ROWS[3]),
]);
const DONE = message('c');
// What node-postgres must still parse after the copy: CommandComplete, ReadyForQuery.
const AFTER = Buffer.concat([message('C', 'COPY 4\0'), message('Z', 'I')]);
const ERROR = message('E', 'SERROR\0C57014\0Mcanceling statement due to user request\0\0');

/** Feeds `chunks` until the copy ends; the rows seen, and how it ended with every byte after (given back + never fed). */
function run(chunks: Buffer[]) {
  const rows: string[] = [];
  const reader = new CopyOutMessages((buf, start, end) => rows.push(buf.toString('utf8', start, end)));
  for (let i = 0; i < chunks.length; i++) {
    const end = reader.feed(chunks[i]!);
    if (end) return { rows, kind: end.kind, after: Buffer.concat([end.rest, ...chunks.slice(i + 1)]) };
  }
  return { rows, kind: null, after: Buffer.alloc(0) };
}

/** The bytes in one chunk, cut at every single point, three ways at a stride, and byte by byte. */
function splits(bytes: Buffer): Buffer[][] {
  return [
    [bytes],
    ...Array.from({ length: bytes.length - 1 }, (_, i) => [bytes.subarray(0, i + 1), bytes.subarray(i + 1)]),
    ...Array.from({ length: 40 }, (_, i) => {
      const a = (i * 397) % bytes.length;
      const b = Math.min(bytes.length, a + 1 + ((i * 7919) % 5000));
      return [bytes.subarray(0, a), bytes.subarray(a, b), bytes.subarray(b)].filter((c) => c.length > 0);
    }),
    Array.from(bytes, (b) => Buffer.from([b])),
  ];
}

describe('CopyOutMessages', () => {
  it('hands over each row whole and the bytes after CopyDone, however the socket cuts them', () => {
    const bytes = Buffer.concat([COPY, DONE, AFTER]);
    for (const chunks of splits(bytes)) {
      const result = run(chunks);
      expect(result.rows).toEqual(ROWS);
      expect(result.kind).toBe('done');
      expect(result.after.equals(AFTER)).toBe(true);
    }
  });

  it('refuses what a statement other than COPY TO STDOUT answers, rather than waiting for CopyDone', () => {
    const select = Buffer.concat([message('T', Buffer.from([0, 1])), message('D', 'x'), message('C', 'SELECT 1\0')]);
    expect(() => run([select])).toThrow("COPY TO STDOUT expected, the server answered 'T'");
  });

  it("stops at an error and gives it back from its first byte, for node-postgres' parser", () => {
    const bytes = Buffer.concat([COPY, ERROR, message('Z', 'I')]);
    for (const chunks of splits(bytes)) {
      const result = run(chunks);
      expect(result.rows).toEqual(ROWS);
      expect(result.kind).toBe('error');
      expect(result.after.equals(Buffer.concat([ERROR, message('Z', 'I')]))).toBe(true);
    }
  });
});
