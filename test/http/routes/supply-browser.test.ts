import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import pg from 'pg';
import { type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { loadSuppliedLots } from '../../../src/accounting/cost-basis/supplied-lots.ts';
import { loadSuppliedProceeds } from '../../../src/accounting/proceeds/load-supplied-proceeds.ts';
import { lackingProceeds, unknownCosts } from '../../../src/http/unknown-costs.ts';
import { insertAccount, insertSpot, withClient } from '../../export/seed.ts';
import { TOKEN, useWebApp } from '../web-fixture.ts';

/**
 * An accountant in Debian's Chromium (playwright-core, launched as test/http/browser.test.ts does)
 * follows the tax years page's link to the supply page, enters the missing cost of a coin moved in
 * and the proceeds of a P2P sale in their forms, sees both listed as supplied by web:accountant,
 * withdraws the proceeds with a reason, and the lists the figures are walked from follow.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const OFFICE_HOST = 'ledgerline.office.test';
const ARGS = [
  `--host-resolver-rules=MAP ${OFFICE_HOST} 127.0.0.1`,
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const SCREENSHOTS = path.resolve('test-artifacts/screenshots');

const web = useWebApp('supplybrowser');
let base: string;
let accountId: string;
let profile = '';
let context: BrowserContext | undefined;

const withPool = async <T>(body: (pool: pg.Pool) => Promise<T>) => {
  const pool = new pg.Pool({ connectionString: web.db.url, max: 1 });
  try {
    return await body(pool);
  } finally {
    await pool.end();
  }
};

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium or set CHROMIUM_PATH`);
  await web.app.listen({ host: '127.0.0.1', port: 0 });
  const address = web.app.server.address();
  base = `http://${OFFICE_HOST}:${typeof address === 'object' && address ? address.port : 0}`;
  accountId = await insertAccount(web.db.url, 'alice');
  await insertSpot(web.db.url, accountId, [
    { recordId: 'dep', coin: 'ETH', spotTaxType: 'Deposit', amount: '1', ts: '2025-03-01T10:00:00.000Z' },
  ]);
  await withClient(web.db.url, (c) =>
    c.query(
      `INSERT INTO p2p_ledger_record (account_id, record_id, coin, p2p_tax_type, total, ts, raw)
       VALUES ($1, 'p4', 'USDT', 'sell', 100, '2025-03-08T10:00:00Z', '{}')`,
      [accountId],
    ),
  );
  profile = await mkdtemp(path.join(tmpdir(), 'll-chromium-supply-'));
  context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS });
});

afterAll(async () => {
  await context?.close();
  if (profile) await rm(profile, { recursive: true, force: true });
});

describe('supplying what is missing, in a real browser', () => {
  it('an accountant supplies a missing cost and a P2P sale’s proceeds on the page, sees who supplied them, and withdraws one', async () => {
    const page = await context!.newPage();
    await page.goto(`${base}/login`);
    await page.fill('input[name="token"]', TOKEN);
    await Promise.all([page.waitForURL(`${base}/`), page.click('button[type="submit"]')]);

    // From the tax years page's "What lacks a cost" to the supply page.
    await page.goto(`${base}/tax-years/${accountId}`);
    await Promise.all([page.waitForURL(/\/supplied\//), page.click('a.supply >> nth=0')]);
    expect(await page.textContent('h1')).toBe('Supplied figures: alice');

    // The coin moved in: its cost in pounds and euros, bought before it moved in.
    const deposit = page.locator('form[data-deposit="spot:dep"]');
    await deposit.locator('input[name="acquired_on"]').fill('2024-01-10');
    await deposit.locator('input[name="cost_gbp"]').fill('1300');
    await deposit.locator('input[name="cost_eur"]').fill('1500');
    await deposit.locator('input[name="source"]').fill('kraken-statement');
    await deposit.locator('input[name="note"]').fill('bought on Kraken, 10 Jan 2024');
    await Promise.all([page.waitForURL(/added=cost-basis-/), deposit.locator('button[type="submit"]').click()]);
    expect(await page.textContent('.notice')).toMatch(/^Supplied: cost-basis import \d+\./);
    expect(await page.locator('form[data-deposit="spot:dep"]').count()).toBe(0);

    // The P2P sale: its proceeds from the bank statement.
    const sale = page.locator('form[data-sale="p2p:p4"]');
    await sale.locator('input[name="proceeds_gbp"]').fill('85');
    await sale.locator('input[name="proceeds_eur"]').fill('95.50');
    await sale.locator('input[name="source"]').fill('bank-statement');
    await Promise.all([page.waitForURL(/added=proceeds-/), sale.locator('button[type="submit"]').click()]);
    expect(await page.textContent('.notice')).toMatch(/^Supplied: proceeds import \d+\./);
    expect(await page.locator('form[data-sale]').count()).toBe(0);

    // Both listed: what, from what, by whom.
    const rows = page.locator('table.supplied tbody tr');
    expect(await rows.count()).toBe(2);
    const texts = await rows.allInnerTexts();
    expect(texts.join('\n')).toContain('2 lots from 2 rows, in EUR,GBP, source kraken-statement');
    expect(texts.join('\n')).toContain('2 proceeds figures from 2 rows, in EUR,GBP, source bank-statement');
    expect(texts.every((t) => t.includes('web:accountant') && t.includes('page form'))).toBe(true);
    await mkdir(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOTS, 'supplied-figures.png'), fullPage: true });

    // What the walks read: the supplied lots and proceeds; nothing lacks any more.
    expect(await withPool((pool) => unknownCosts(pool, accountId))).toEqual([]);
    expect(await withPool((pool) => lackingProceeds(pool, accountId))).toEqual([]);
    const lots = await withPool((pool) => loadSuppliedLots(pool, accountId));
    expect(lots.map((l) => `${l.coin} ${l.quantity.toString()} ${l.cost.toString()} ${l.currency}`).sort()).toEqual([
      'ETH 1 1300 GBP',
      'ETH 1 1500 EUR',
    ]);

    // Withdrawn with a reason: kept in the list, marked, and the sale lacks its proceeds again.
    const proceedsRow = page.locator('table.supplied tr[data-kind="proceeds"]');
    await proceedsRow.locator('input[name="reason"]').fill('the buyer paid a different amount');
    await Promise.all([page.waitForURL(/withdrawn=proceeds-/), proceedsRow.locator('button').click()]);
    expect(await page.locator('table.supplied tr[data-kind="proceeds"] .withdrawn').innerText()).toMatch(
      /^Withdrawn \S+Z by web:accountant: the buyer paid a different amount$/,
    );
    expect(await page.locator('form[data-sale="p2p:p4"]').count()).toBe(1);
    expect(await withClient(web.db.url, (c) => loadSuppliedProceeds(c, accountId))).toEqual([]);
  });
});
