import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

import { describe, expect, it } from 'vitest';

import { FlagStripper } from '../../src/export/flag-stripper.ts';

// What COPY writes for (flag, cells...): NULL flag as nothing, a flag quoted when it needs it.
const INPUT = [
  ',1,plain,-1.5\n',
  'omitted:futures-transfer,2,dropped,0\n',
  ',3,"multi\nline, ""quoted""",\n',
  '"unmapped=a,""b""\nc",4,"x\r\ny",\n',
  'unpaired-leg,5,é✓🚀,7\n',
  '"",6,empty flag,\n',
  ',7,"""",""\n',
].join('');
const EXPECTED = [
  '1,plain,-1.5\n',
  '3,"multi\nline, ""quoted""",\n',
  '4,"x\r\ny",\n',
  '5,é✓🚀,7\n',
  '6,empty flag,\n',
  '7,"""",""\n',
];

async function strip(chunks: Buffer[]) {
  const flags: string[] = [];
  const side: string[] = [];
  const stripper = new FlagStripper((flag, record) => {
    flags.push(flag);
    if (flag.startsWith('omitted:')) return 'drop';
    if (flag === 'unpaired-leg') side.push(record.toString('utf8'));
    return 'keep';
  });
  const out: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      out.push(chunk);
      callback();
    },
  });
  await pipeline(Readable.from(chunks), stripper, sink);
  return { text: Buffer.concat(out).toString('utf8'), flags, side, records: stripper.records };
}

describe('FlagStripper', () => {
  it('drops the flag field of every record, across any split of the bytes into chunks', async () => {
    const bytes = Buffer.from(INPUT, 'utf8');
    // Every cut point (including inside quoted fields and multi-byte characters), and byte by byte.
    const splits = [
      [bytes],
      ...Array.from({ length: bytes.length - 1 }, (_, i) => [bytes.subarray(0, i + 1), bytes.subarray(i + 1)]),
      Array.from(bytes, (b) => Buffer.from([b])),
    ];
    for (const chunks of splits) {
      const result = await strip(chunks);
      expect(result.text).toBe(EXPECTED.join(''));
      expect(result.flags).toEqual(['omitted:futures-transfer', 'unmapped=a,"b"\nc', 'unpaired-leg']);
      expect(result.side).toEqual(['5,é✓🚀,7\n']);
      expect(result.records).toBe(6);
    }
  });

  it('fails when the bytes end inside a record', async () => {
    await expect(strip([Buffer.from(',1,"open\n')])).rejects.toThrow('ended inside a record');
  });
});
