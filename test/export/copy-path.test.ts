import { createHash } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { pipeline } from 'node:stream/promises';

import { beforeAll, describe, expect, it } from 'vitest';

import { CopyOutQuery } from '../../src/export/copy-out-query.ts';
import { CopyRowRewriter } from '../../src/export/copy-row-rewriter.ts';
import { encodeCsvRow } from '../../src/export/csv-encoder.ts';
import { parseExportRequest, reportParams } from '../../src/export/export-request.ts';
import { sqlLiteral } from '../../src/export/inline-params.ts';
import { neutralizeCell } from '../../src/export/neutralize.ts';
import { REPORTS } from '../../src/export/reports/index.ts';
import { streamReport } from '../../src/export/stream-report.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { ACCOUNT_NAME, AMOUNTS, insertNastyAccount, NASTY } from './nasty-seed.ts';
import { withClient } from './seed.ts';

/**
 * Every SQL report written by COPY (the default path) must be byte for byte what the Node encoder
 * (csv-stringify's format, neutralizeCell) writes for the same rows: the data below puts every
 * cell that the two could disagree on into every text column the reports show (nasty-seed.ts).
 */
const db = useTestDatabase('exportcopy');

const SQL_REPORTS = REPORTS.filter((r) => r.kind === 'sql');
let accountId: string;

beforeAll(async () => {
  accountId = await insertNastyAccount(db.url);
});

async function exportBytes(report: string, encoder: 'copy' | 'node') {
  const request = parseExportRequest({ report, accountId, from: '2026-02-01', to: '2026-03-31', tz: 'Europe/Berlin' });
  const sink = new PassThrough();
  const side = new PassThrough();
  const chunks: Buffer[] = [];
  const sideChunks: Buffer[] = [];
  sink.on('data', (c: Buffer) => chunks.push(c));
  side.on('data', (c: Buffer) => sideChunks.push(c));
  const result = await streamReport({
    databaseUrl: db.url,
    report: SQL_REPORTS.find((r) => r.name === report)!,
    params: reportParams(request, ACCOUNT_NAME),
    sink,
    unpairedSink: side,
    encoder,
  });
  return { bytes: Buffer.concat(chunks), side: Buffer.concat(sideChunks), result };
}

describe('COPY path', () => {
  it('covers every SQL report', () => {
    expect(SQL_REPORTS.map((r) => r.name)).toEqual(
      expect.arrayContaining([
        'spot-ledger',
        'futures-pnl',
        'futures-summary',
        'broker-transfers',
        'koinly',
        'cointracking',
        'futures-ledger',
        'margin-ledger',
        'p2p-ledger',
      ]),
    );
  });

  it.each(SQL_REPORTS.map((r) => r.name))('%s: the same bytes, digest and counts as the Node encoder', async (name) => {
    const node = await exportBytes(name, 'node');
    const copy = await exportBytes(name, 'copy');
    // The seed reaches the report: more than the header, and the nasty cells among the rows.
    expect(node.result.rowCount).toBeGreaterThan(5);
    expect(copy.bytes.toString('utf8')).toBe(node.bytes.toString('utf8'));
    expect(copy.bytes.equals(node.bytes)).toBe(true);
    expect(copy.result.sha256).toBe(createHash('sha256').update(node.bytes).digest('hex'));
    expect(copy.result).toEqual(node.result);
    expect(copy.side.equals(node.side)).toBe(true);
  });

  it('the seed exercises what the copy path must handle', async () => {
    const spot = await exportBytes('spot-ledger', 'copy');
    const text = spot.bytes.toString('utf8');
    for (const cell of [
      "'=SUM(A1:A9)",
      "'\uFF1Dfull",
      // Control characters from the exchange are escaped as the terminal shows them (issue 34).
      ',line1\\nline2,',
      ',cr\\ronly,',
      '"say ""hi"""',
      ',\\.,',
      ",'-3.5,",
      ',-1.5,',
      ",'-Infinity,",
      ",' =1+1,",
      ",'  +cmd,",
      ",'\u00A0@x,",
      ",'\u3000=1,",
    ])
      expect(text).toContain(cell);
    // An empty cell is written as nothing, never as COPY's `""`.
    expect(text).not.toMatch(/(^|,)""(,|\n)/m);
    expect(text).toMatch(/,,/);
    expect(spot.result.unmapped.rows).toBeGreaterThan(0);
    const koinly = await exportBytes('koinly', 'copy');
    // Nothing is left out of the tax-tool files since both wallets are in them.
    expect(koinly.result.omitted).toEqual({ rows: 0, values: {} });
    expect(koinly.result.review.rows).toBeGreaterThan(0);
    expect(koinly.result.unpairedLegs).toBeGreaterThan(0);
    expect(koinly.side.length).toBeGreaterThan(0);
  });

  it("rewrites COPY's bytes exactly as neutralizeCell and the encoder write each cell, leading whitespace before a formula included", async () => {
    const cells = [
      ...NASTY,
      ...AMOUNTS,
      ' =1+1',
      '\t=cmd',
      '\n=1',
      '\u00A0=1',
      '\uFEFF=1',
      '\u2003@x',
      ' \uFF1D1',
      ' ',
      '  ',
      ' lead',
      ' 1.5',
      ' -1.5',
      'a =1',
      '1',
      '+',
      '-',
      ',',
      '~',
      // Recognised as plain negative decimals on their bytes, or not.
      '-1.',
      '-.5',
      '--1',
      '-1e5',
      '-1.5.5',
      '-0.000',
      null,
    ];
    // Each cell as a text and as a decimal column, then a NULL flag: Postgres' own CSV bytes, rewritten.
    const copied = await withClient(db.url, async (client) => {
      const chunks: Buffer[] = [];
      const sink = new PassThrough().on('data', (chunk: Buffer) => chunks.push(chunk));
      const rows = new CopyRowRewriter(['text', 'decimal'], Buffer.alloc(0), () => 'keep');
      const select = `SELECT c, c, NULL::text FROM unnest(${sqlLiteral(cells)}::text[]) WITH ORDINALITY AS t(c, n) ORDER BY n`;
      await pipeline(client.query(new CopyOutQuery(`COPY (${select}) TO STDOUT (FORMAT csv)`, rows)), sink);
      return Buffer.concat(chunks).toString('utf8');
    });
    expect(copied).toBe(
      cells.map((c) => encodeCsvRow([neutralizeCell(c, 'text'), neutralizeCell(c, 'decimal')])).join(''),
    );
    expect(neutralizeCell(' =1+1', 'text')).toBe("' =1+1");
  });
});
