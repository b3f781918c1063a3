import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { insertAccount, insertSpot, parseCsv } from '../export/seed.ts';
import { TOKEN, useWebApp } from './web-fixture.ts';

/**
 * Acceptance 4: Debian's chromium, driven by playwright-core, signs in, requests a report, waits
 * for it on the page, downloads it and gets exactly the records; without the token it gets nothing.
 */
// Debian's package by default; CHROMIUM_PATH points elsewhere (bash .ci/run installs the package).
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const web = useWebApp('browser');
let base: string;
let accountId: string;
const profiles: string[] = [];
const contexts: BrowserContext[] = [];

// Every browser gets a new, empty profile: no cookie survives from one context to another.
async function browser(): Promise<BrowserContext> {
  const profile = await mkdtemp(path.join(tmpdir(), 'll-chromium-'));
  profiles.push(profile);
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    acceptDownloads: true,
  });
  contexts.push(context);
  return context;
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `no Chromium at ${CHROMIUM}: install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH`,
    );
  }
  await web.app.listen({ host: '127.0.0.1', port: 0 });
  const address = web.app.server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  accountId = await insertAccount(web.db.url, 'berlin-gmbh');
  await insertSpot(web.db.url, accountId, [
    // 23:30 UTC on 31 December is already January in Berlin: in the January report.
    { recordId: '9001', coin: 'BTC', spotTaxType: 'Deposit', amount: '0.12345678', ts: '2025-12-31T23:30:00Z' },
    {
      recordId: '9002',
      coin: 'USDT',
      spotTaxType: 'Sell',
      amount: '-1500.50',
      fee: '-1.5',
      ts: '2026-01-15T09:00:00Z',
    },
    { recordId: '9003', coin: '=cmd', spotTaxType: 'Interest', amount: '0.01', ts: '2026-01-20T09:00:00Z' },
    // 23:00 UTC on 31 January is February in Berlin: not in it.
    { recordId: '9004', coin: 'BTC', spotTaxType: 'Deposit', amount: '1', ts: '2026-01-31T23:00:00Z' },
  ]);
});

afterAll(async () => {
  for (const context of contexts) await context.close();
  for (const profile of profiles) await rm(profile, { recursive: true, force: true });
});

describe('the accountants page in a real browser', () => {
  it('signs in, requests a report, watches it finish and downloads exactly the records', async () => {
    const context = await browser();
    const page = await context.newPage();
    await page.goto(`${base}/`);
    expect(new URL(page.url()).pathname).toBe('/login');

    await page.fill('input[name="token"]', TOKEN);
    await Promise.all([page.waitForURL(`${base}/`), page.click('button[type="submit"]')]);
    expect(await page.textContent('h1')).toBe('Exports');

    await page.selectOption('select[name="accountId"]', { label: 'berlin-gmbh' });
    await page.selectOption('select[name="report"]', 'spot-ledger');
    await page.fill('input[name="from"]', '2026-01-01');
    await page.fill('input[name="to"]', '2026-01-31');
    await page.fill('input[name="tz"]', 'Europe/Berlin');
    await Promise.all([page.waitForURL(/\/jobs\//), page.click('text=Request export')]);

    // The job page refreshes itself until the export is done.
    await page.waitForSelector('#downloads a', { timeout: 20_000 });
    expect(await page.textContent('#state')).toBe('completed');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#downloads a:text-is("CSV")')]);
    expect(download.suggestedFilename()).toBe('spot-ledger_2026-01-01_2026-01-31_Europe~Berlin.csv');
    const content = await readFile((await download.path())!, 'utf8');
    const rows = parseCsv(content);
    expect(rows[0]).toEqual([
      'record_id',
      'time_utc',
      'time_local',
      'ts_ms',
      'coin',
      'spot_tax_type',
      'category',
      'amount',
      'fee',
      'balance',
      'biz_order_id',
      'unmapped',
    ]);
    expect(rows.slice(1).map((r) => [r[0], r[2], r[4], r[6], r[7], r[8]])).toEqual([
      ['9001', '2026-01-01T00:30:00.000+01:00', 'BTC', 'deposit', '0.12345678', '0'],
      ['9002', '2026-01-15T10:00:00.000+01:00', 'USDT', 'trade', '-1500.50', '-1.5'],
      ['9003', '2026-01-20T10:00:00.000+01:00', "'=cmd", 'income', '0.01', '0'],
    ]);

    const [manifestDownload] = await Promise.all([
      page.waitForEvent('download'),
      page.click('#downloads a:text-is("manifest")'),
    ]);
    const manifest = JSON.parse(await readFile((await manifestDownload.path())!, 'utf8')) as Record<string, unknown>;
    expect(manifest.sha256).toBe(createHash('sha256').update(content).digest('hex'));
    expect(manifest.rowCount).toBe(3);

    // The finished export is listed on the home page too.
    await page.goto(`${base}/`);
    expect(await page.locator('a[href$="spot-ledger_2026-01-01_2026-01-31_Europe~Berlin.csv"]').count()).toBe(1);
  });

  it('refuses the pages and the download to a browser without the token', async () => {
    const context = await browser();
    const page = await context.newPage();
    const csv = `${base}/downloads/${accountId}/spot-ledger_2026-01-01_2026-01-31_Europe~Berlin.csv`;
    const refused = await context.request.get(csv);
    expect(refused.status()).toBe(401);
    expect(await refused.text()).not.toContain('9001');
    await page.goto(`${base}/admin/queues`);
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.fill('input[name="token"]', 'not-the-token');
    await page.click('button[type="submit"]');
    expect(await page.textContent('[role="alert"]')).toBe('That token is not valid.');
    expect((await context.request.get(csv)).status()).toBe(401);
    expect(await context.cookies()).toEqual([]);
  });
});
