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
import {
  insertAccount,
  insertFuturesLedger,
  insertPositions,
  insertSpot,
  insertTransfers,
  withClient,
} from './seed.ts';
import { insertMarginLedger, insertP2pLedger } from './seed-wallet-ledgers.ts';

/**
 * Every SQL report written by COPY (the default path) must be byte for byte what the Node encoder
 * (csv-stringify's format, neutralizeCell) writes for the same rows: the data below puts every
 * cell that the two could disagree on into every text column the reports show.
 */
const db = useTestDatabase('exportcopy');

const NASTY = [
  'a,b',
  'say "hi"',
  '"',
  ',',
  'line1\nline2',
  'cr\ronly',
  'crlf\r\nend',
  '=SUM(A1:A9)',
  '+1',
  '-2',
  '-3.5',
  '@cmd',
  '\tTab',
  '\rCR first',
  '\uFF1Dfull',
  '\uFF0B1',
  '\uFF0D2',
  '\uFF20at',
  '',
  'héllo ✓ 日本語 🚀',
  '\\.',
  '\\',
  "'already",
  ' lead and trail ',
  '"=quoted,formula"',
  ' =1+1',
  '  +cmd',
  '\u00A0@x',
  '\u3000=1',
  ' \t=x',
  ' -4.5',
];
const AMOUNTS = ['-1.5', '2', '0.00000001', '-0', 'NaN', '-Infinity', 'Infinity', '1000000000000.123456789', '-7'];

const SQL_REPORTS = REPORTS.filter((r) => r.kind === 'sql');
let accountId: string;

beforeAll(async () => {
  accountId = await insertAccount(db.url, 'copy, "nasty" =name');
  const ts = (i: number) => Date.UTC(2026, 2, 1) + i * 3_600_000;
  const types = ['Buy', 'Sell', 'Deposit', 'Transfer in', 'Judicial recall', 'No such type, "x"', '=Evil'];
  await insertSpot(
    db.url,
    accountId,
    NASTY.flatMap((text, i) => [
      {
        recordId: `r${i}-${text}`,
        coin: text,
        spotTaxType: types[i % types.length]!,
        amount: AMOUNTS[i % AMOUNTS.length]!,
        fee: i % 3 === 0 ? '-0.001' : '0',
        balance: AMOUNTS[(i + 3) % AMOUNTS.length]!,
        // Pairs of legs share an order id; every seventh order has one leg only (unpaired).
        bizOrderId: text === '' ? '' : `o${Math.floor(i / 2)}${text}`,
        ts: ts(i),
        unmapped: i % 4 === 0 ? [text, 'x,"y"'] : [],
      },
      {
        recordId: `s${i}`,
        coin: i % 2 ? 'USDT' : text,
        spotTaxType: types[(i + 1) % types.length]!,
        amount: AMOUNTS[(i + 1) % AMOUNTS.length]!,
        bizOrderId: i % 7 === 0 ? `lone${i}` : `o${Math.floor(i / 2)}${text}`,
        ts: ts(i),
      },
    ]),
  );
  await insertPositions(
    db.url,
    accountId,
    NASTY.map((text, i) => ({
      positionId: `p${i}${text}`,
      symbol: `${text}USDT`,
      marginCoin: text,
      holdSide: i % 3 === 0 ? text : 'short',
      marginMode: i % 5 === 0 ? text : 'crossed',
      pnl: AMOUNTS[i % AMOUNTS.length]!,
      totalFunding: AMOUNTS[(i + 2) % AMOUNTS.length]!,
      cTime: ts(i),
      uTime: ts(i) + 60_000,
      raw: { holdSide: text, marginMode: text },
      unmapped: i % 4 === 1 ? ['holdSide', text] : [],
    })),
  );
  await insertTransfers(
    db.url,
    accountId,
    NASTY.map((text, i) => ({
      txId: `t${i}${text}`,
      type: i % 2 ? 'withdrawal' : 'deposit',
      subUid: text,
      coin: text,
      subType: i % 3 ? 'onchain' : text,
      amount: AMOUNTS[i % AMOUNTS.length]!,
      status: i % 5 === 0 ? text : 'success',
      ts: ts(i),
      raw: { subType: text, status: text },
    })),
  );
});

beforeAll(async () => {
  const ts = (i: number) => Date.UTC(2026, 2, 1) + i * 3_600_000;
  const types = [
    'TRANSFER_IN',
    'CLOSE_LONG',
    'OPEN_SHORT',
    'CONTRACT_MAIN_SETTLE_FEE_USER_OUT',
    'No such type, "x"',
    '=Evil',
  ];
  await insertFuturesLedger(
    db.url,
    accountId,
    NASTY.map((text, i) => ({
      recordId: `f${i}${text}`,
      symbol: i % 2 ? `${text}USDT` : '',
      marginCoin: text,
      futureTaxType: types[i % types.length]!,
      amount: AMOUNTS[i % AMOUNTS.length]!,
      fee: i % 3 === 0 ? '-0.001' : '0',
      ts: ts(i),
      unmapped: i % 4 === 2 ? ['futureTaxType', text] : [],
    })),
  );
  // The wallet ledgers: listed and unlisted types, both margin scopes, the nasty text in every text column.
  const marginTypes = ['transfer_in', 'deal_out', 'confiscated', 'No such type, "x"', '=Evil'];
  await insertMarginLedger(
    db.url,
    accountId,
    NASTY.map((text, i) => ({
      recordId: `m${i}${text}`,
      marginType: i % 2 ? 'isolated' : 'crossed',
      coin: text,
      symbol: i % 2 ? `${text}USDT` : '',
      marginTaxType: i % 3 === 0 ? text : marginTypes[i % marginTypes.length]!,
      amount: AMOUNTS[i % AMOUNTS.length]!,
      fee: i % 3 === 0 ? '-0.001' : '0',
      total: AMOUNTS[(i + 4) % AMOUNTS.length]!,
      ts: ts(i),
      unmapped: i % 4 === 3 ? ['marginTaxType', text] : [],
    })),
  );
  const p2pTypes = ['buy', 'sell', 'transfer_out', 'No such type, "x"', '=Evil'];
  await insertP2pLedger(
    db.url,
    accountId,
    NASTY.map((text, i) => ({
      recordId: `q${i}${text}`,
      coin: text,
      p2pTaxType: i % 3 === 0 ? text : p2pTypes[i % p2pTypes.length]!,
      total: AMOUNTS[i % AMOUNTS.length]!,
      ts: ts(i),
      unmapped: i % 4 === 0 ? ['p2pTaxType', text] : [],
    })),
  );
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
    params: reportParams(request, 'copy, "nasty" =name'),
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
