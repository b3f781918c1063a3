import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';

import JSZip from 'jszip';
import { DateTime } from 'luxon';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { importPrices } from '../../src/accounting/prices/import-prices.ts';
import type { ExportManifest } from '../../src/export/manifest.ts';
import { buildTaxYearPack, type BuiltPack, type PackManifest } from '../../src/export/pack/build-tax-year-pack.ts';
import { ANLAGE_SO, sa108Layout } from '../../src/export/pack/pack-forms.ts';
import { parsePackYear } from '../../src/export/pack/pack-request.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { insertAccount, insertCoverage, insertFuturesLedger, insertSpot, parseCsv, withClient } from './seed.ts';

/**
 * The tax-year pack (issue 41 item 6) of a UK and a German year: the zip holds the PDF, both CSVs
 * and their manifests; every hash checks; the PDF, read back with pdftotext, states the summary
 * CSV's own figures on the form's boxes and lines, what is still open and what was supplied.
 */
const db = useTestDatabase('taxyearpack');
const run = promisify(execFile);
let exportDir: string;
let pool: pg.Pool;
let uk: string;
let de: string;
// A fixed "now" after both years: the test holds on any date.
const NOW = new Date('2025-06-01T12:00:00Z');

const at = (day: string) => `${day}T10:00:00.000Z`;
let order = 0;
function trade(day: string, give: [string, string], get: [string, string]) {
  order += 1;
  const id = `t${order}`;
  return [
    { recordId: `${id}a`, coin: give[1], spotTaxType: 'Sell', amount: `-${give[0]}`, bizOrderId: id, ts: at(day) },
    { recordId: `${id}b`, coin: get[1], spotTaxType: 'Sell', amount: get[0], bizOrderId: id, ts: at(day) },
  ];
}
const ms = (iso: string) => Date.parse(iso);

async function seed(fiat: 'GBP' | 'EUR', accountId: string): Promise<void> {
  await insertSpot(db.url, accountId, [
    ...trade('2024-05-01', ['1000.25', fiat], ['10', 'SOL']),
    ...trade('2024-06-03', ['4', 'SOL'], ['600.69', fiat]),
    ...trade('2024-07-04', ['6', 'SOL'], ['450.13', fiat]),
    // 2 BTC moved in; a cost is supplied for 0.5 of them: 1.5 lack one, and the sale of 1 is flagged.
    { recordId: 'dep', coin: 'BTC', spotTaxType: 'Deposit', amount: '2', ts: at('2024-08-01') },
    ...trade('2024-09-02', ['1', 'BTC'], ['30000', fiat]),
  ]);
  await insertFuturesLedger(db.url, accountId, [
    {
      recordId: 'f1',
      symbol: 'BTCUSDT',
      marginCoin: 'USDT',
      futureTaxType: 'CLOSE_LONG',
      amount: '50.5',
      fee: '-1.25',
      ts: ms('2024-10-01T10:00:00Z'),
    },
    {
      recordId: 'f2',
      symbol: 'BTCUSDT',
      marginCoin: 'USDT',
      futureTaxType: 'CLOSE_SHORT',
      amount: '-80',
      fee: '-0.5',
      ts: ms('2024-10-02T10:00:00Z'),
    },
  ]);
  await insertCoverage(db.url, accountId, '2023-01-01', '2025-06-01');
  await withClient(db.url, async (c) => {
    const { rows } = await c.query<{ id: string }>(
      `INSERT INTO cost_basis_import (account_id, file_name, sha256, sources, rows, supplied_by)
       VALUES ($1, 'costs.csv', $2, 'bank', 1, 'web:accountant') RETURNING id`,
      [accountId, 'a'.repeat(64)],
    );
    await c.query(
      `INSERT INTO cost_basis_lot (account_id, import_id, coin, quantity, acquired_at, cost, currency, source)
       VALUES ($1, $2, 'BTC', 0.5, '2024-07-01T00:00:00Z', 12345.67, $3, 'bank statement')`,
      [accountId, rows[0]!.id, fiat],
    );
  });
}

async function unzip(pack: BuiltPack): Promise<JSZip> {
  return JSZip.loadAsync(await readFile(pack.zipPath));
}
const sha256 = (bytes: Buffer | Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** The PDF's text as pdftotext lays it out (poppler-utils). */
async function pdfText(zip: JSZip, name: string): Promise<string> {
  const file = path.join(exportDir, `read-${name}`);
  await writeFile(file, await zip.file(name)!.async('nodebuffer'));
  const { stdout } = await run('pdftotext', ['-layout', file, '-']);
  return stdout;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The year's rows of the summary CSV in the zip, by level, cells by header. */
async function summaryRows(zip: JSZip, file: string): Promise<Array<Record<string, string>>> {
  const [header, ...rows] = parseCsv(await zip.file(file)!.async('string'));
  return rows.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i] ?? ''])));
}

/** Every file in the zip has the hash its manifest and the pack's list state; the zip the pack manifest's. */
async function checkHashes(pack: BuiltPack, zip: JSZip): Promise<{ summary: string; gains: string }> {
  const written: PackManifest = JSON.parse(await readFile(pack.manifestPath, 'utf8'));
  expect(sha256(await readFile(pack.zipPath))).toBe(written.sha256);
  const listing = JSON.parse(await zip.file('pack.json')!.async('string')) as { files: PackManifest['files'] };
  expect(listing.files.map((f) => f.name).sort()).toEqual(
    Object.keys(zip.files)
      .filter((n) => n !== 'pack.json')
      .sort(),
  );
  for (const f of listing.files) expect(sha256(await zip.file(f.name)!.async('nodebuffer'))).toBe(f.sha256);
  const manifests = listing.files.filter((f) => f.name.endsWith('.manifest.json'));
  expect(manifests).toHaveLength(2);
  const csv: Record<string, string> = {};
  for (const m of manifests) {
    const manifest = JSON.parse(await zip.file(m.name)!.async('string')) as ExportManifest;
    expect(sha256(await zip.file(manifest.file)!.async('nodebuffer'))).toBe(manifest.sha256);
    csv[manifest.report] = manifest.file;
  }
  return { summary: csv['realized-gains-summary']!, gains: csv['realized-gains']! };
}

beforeAll(async () => {
  exportDir = await mkdtemp(path.join(tmpdir(), 'pack-'));
  pool = new pg.Pool({ connectionString: db.url, max: 2 });
  uk = await insertAccount(db.url, 'uk-pack');
  de = await insertAccount(db.url, 'de-pack');
  await seed('GBP', uk);
  await seed('EUR', de);
  const lines = ['date,base,quote,price,source'];
  for (let d = DateTime.fromISO('2024-01-01'); d.year < 2026; d = d.plus({ days: 1 })) {
    lines.push(`${d.toISODate()},USDT,EUR,0.5,synthetic-test`, `${d.toISODate()},USDT,GBP,0.25,synthetic-test`);
  }
  await withClient(db.url, (c) => importPrices(c, Readable.from([`${lines.join('\n')}\n`])));
});

afterAll(async () => {
  await pool?.end();
  await rm(exportDir, { recursive: true, force: true });
});

const build = (accountId: string, name: string, method: string, taxYear: string) =>
  buildTaxYearPack({
    databaseUrl: db.url,
    exportDir,
    pool,
    account: { id: accountId, name },
    year: parsePackYear(method, taxYear, NOW.getTime()),
    now: () => NOW,
  });

describe('the tax-year pack', () => {
  it('uk: the zip holds the PDF, the CSVs and manifests, every hash checks, and the PDF states SA108’s boxes with the summary’s figures', async () => {
    const pack = await build(uk, 'uk-pack', 'uk', '2024-25');
    expect(path.basename(pack.zipPath)).toBe('tax-year-pack_uk_2024-25.zip');
    // Both files from one walk of the history, so from one snapshot.
    expect(pack.walks).toBe(1);
    expect(pack.manifest).toMatchObject({
      partial: false,
      complete: true,
      taxYear: '2024-25',
      from: '2024-04-06',
      to: '2025-04-05',
    });
    const zip = await unzip(pack);
    const files = await checkHashes(pack, zip);
    expect(Object.keys(zip.files).sort()).toEqual(
      [
        'pack.json',
        'tax-year-pack_uk_2024-25.pdf',
        files.summary,
        files.summary.replace(/\.csv$/, '.manifest.json'),
        files.gains,
        files.gains.replace(/\.csv$/, '.manifest.json'),
      ].sort(),
    );
    const rows = await summaryRows(zip, files.summary);
    const sa108 = rows.find((r) => r.level === 'sa108' && r.tax_year === '2024-25')!;
    const text = await pdfText(zip, 'tax-year-pack_uk_2024-25.pdf');
    for (const field of sa108Layout('2024-25').fields) {
      expect(sa108[field.column]).toMatch(/^\d+$/);
      expect(text).toMatch(
        new RegExp(
          `${escapeRe(field.number)}\\s+${escapeRe(field.label)}\\s+${sa108[field.column]}\\s+(GBP\\s+)?S1 · sa108 · ${field.column}\\s`,
        ),
      );
    }
    // S1, the figures' source, is the summary file with its manifest's hash.
    const summaryManifest = JSON.parse(
      await zip.file(files.summary.replace(/\.csv$/, '.manifest.json'))!.async('string'),
    ) as ExportManifest;
    expect(text).toMatch(new RegExp(`S1 ${escapeRe(files.summary)}\\s+sha256 ${summaryManifest.sha256}\\s`));
    // By hand: SOL bought for 1000.25, sold for 600.69 + 450.13 (two disposals).
    const sol = rows.find((r) => r.level === 'coin' && r.coin === 'SOL')!;
    expect([sol.disposals, sol.proceeds, sol.allowable_costs]).toEqual(['2', '1050.82', '1000.25']);
    expect(text).toMatch(/SOL\s+2\s+1050\.82\s+1000\.25\s+50\.57\s/);
    // 50.5 - 1.25 - 80 - 0.5 = -31.25 USDT at 0.25 GBP: in no box, stated apart.
    const futures = rows.find((r) => r.level === 'futures' && r.tax_year === '2024-25')!;
    expect(futures.futures_net_value).toBe('-7.8125');
    expect(text).toMatch(/USDT\s+-31\.25\s+-7\.8125\s/);
    // Each source file by name with its manifest's hash.
    const manifest = (file: string) => zip.file(file.replace(/\.csv$/, '.manifest.json'))!.async('string');
    for (const file of [files.summary, files.gains]) {
      expect(text).toContain(file);
      expect(text).toContain((JSON.parse(await manifest(file)) as ExportManifest).sha256);
    }
    // Still open: the BTC sale of unknown cost, 1.5 BTC lacking one; supplied: 0.5 BTC at 12345.67 GBP.
    expect(text).toMatch(/unknown-cost\s+BTC\s+1\s+1\s/);
    expect(text).toMatch(/BTC\s+1\s+1\.5/);
    expect(text).toMatch(/cost\s+BTC\s+0\.5\s+12345\.67 GBP/);
  });

  it('de: Anlage SO’s lines and the Anlage KAP futures figures are the summary CSV’s', async () => {
    const pack = await build(de, 'de-pack', 'de', '2024');
    const zip = await unzip(pack);
    const files = await checkHashes(pack, zip);
    const rows = await summaryRows(zip, files.summary);
    const so = rows.find((r) => r.level === 'anlage-so' && r.year === '2024')!;
    const total = rows.find((r) => r.level === 'total' && r.year === '2024')!;
    const text = await pdfText(zip, 'tax-year-pack_de_2024.pdf');
    for (const field of ANLAGE_SO.fields.filter((f) => f.number !== '')) {
      const value = (field.level === 'total' ? total : so)[field.column]!;
      expect(value).toMatch(/^-?\d+$/);
      expect(text).toMatch(new RegExp(`${field.number}\\s+${escapeRe(field.label)}\\s+${escapeRe(value)}\\s`));
    }
    const sol = rows.find((r) => r.level === 'coin' && r.coin === 'SOL')!;
    expect([sol.matches, sol.taxable_proceeds, sol.taxable_cost]).toEqual(['2', '1050.82', '1000.25']);
    const futures = rows.find((r) => r.level === 'futures' && r.year === '2024')!;
    // 50.5 - 1.25 - 80 - 0.5 = -31.25 USDT at 0.5: a loss, Zeile 24.
    expect(futures.futures_net_value).toBe('-15.625');
    expect(text).toMatch(/24 \(loss\)\s+USDT\s+-31\.25\s+-15\.625/);
    expect(text).toMatch(/cost\s+BTC\s+0\.5\s+12345\.67 EUR/);
  });
});
