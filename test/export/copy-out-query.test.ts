import { PassThrough, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

import { describe, expect, it } from 'vitest';

import { CopyOutQuery } from '../../src/export/copy-out-query.ts';
import { CopyRowRewriter } from '../../src/export/copy-row-rewriter.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { withClient } from './seed.ts';

/** The COPY reader on a real connection: backpressure, and a query that fails halfway through. */
const db = useTestDatabase('exportcopyout');

describe('CopyOutQuery', () => {
  it('a receiver slower than Postgres gets every row: the socket pauses and resumes without losing or stalling', async () => {
    await withClient(db.url, async (client) => {
      const rows = new CopyRowRewriter(['text'], Buffer.alloc(0), () => 'keep');
      // ~12 MB, three times what the reader holds before it pauses the socket.
      const select = "SELECT lpad(n::text, 19, '0'), NULL::text FROM generate_series(1, 600000) AS n";
      let bytes = 0;
      let last = '';
      let writes = 0;
      const slowSink = new Writable({
        write(chunk: Buffer, _encoding, callback) {
          bytes += chunk.length;
          last = chunk.toString('utf8', chunk.length - 20);
          setTimeout(callback, ++writes % 4 === 0 ? 30 : 0);
        },
      });
      await pipeline(client.query(new CopyOutQuery(`COPY (${select}) TO STDOUT (FORMAT csv)`, rows)), slowSink);
      expect(rows.records).toBe(600_000);
      expect(bytes).toBe(600_000 * 20);
      expect(last).toBe('0000000000000600000\n');
      expect(rows.bytes).toBe(bytes);
    });
  });

  it("fails with Postgres' error when the query fails midway, and hands the connection back usable", async () => {
    await withClient(db.url, async (client) => {
      const rows = new CopyRowRewriter(['decimal'], Buffer.alloc(0), () => 'keep');
      // Past the first socket reads: the error arrives between rows, after many were handed over.
      const select = 'SELECT (1 / (50000 - n))::text, NULL::text FROM generate_series(1, 60000) AS n';
      const sink = new PassThrough().resume();
      await expect(
        pipeline(client.query(new CopyOutQuery(`COPY (${select}) TO STDOUT (FORMAT csv)`, rows)), sink),
      ).rejects.toThrow('division by zero');
      expect(rows.records).toBeGreaterThan(1000);
      const after = await client.query<{ one: number }>('SELECT 1 AS one');
      expect(after.rows).toEqual([{ one: 1 }]);
    });
  });
});
