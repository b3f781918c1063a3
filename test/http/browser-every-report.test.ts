import { DateTime } from 'luxon';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { GAINS_METHODS } from '../../src/accounting/gains/gains-method.ts';
import { REPORTS } from '../../src/export/reports/index.ts';
import { insertAccount, insertCoverage, insertFuturesLedger, insertSpot } from '../export/seed.ts';
import { Browsers, listenForBrowser, requireChromium, signInWithToken } from '../helpers/chromium.ts';
import { TOKEN, useWebApp } from './web-fixture.ts';

/**
 * Issue 41 item 1, as an accountant meets it in Chromium: every report kind, and each gains report
 * under every method (FIFO ... UK, Germany), requested from the export form, lands on a job page in
 * plain words that follows the job to its downloads, and the CSV downloads. Before, every UK or
 * German report ended on `{"code":"FST_ERR_MAX_PARAM_LENGTH",...}` (HTTP 414) and the only browser
 * test asked for a spot ledger.
 */
const web = useWebApp('browser-every-report');
const browsers = new Browsers();
let base: string;
let direct: string;
let accountName: string;

// Last calendar month in London: a period whose days all lie in the past on any date the suite runs.
const month = DateTime.utc().setZone('Europe/London').minus({ months: 1 });
const from = month.startOf('month').toISODate()!;
const to = month.endOf('month').toISODate()!;
const at = (day: number, hour: number) => month.set({ day, hour }).toUTC().toISO()!;

const requests = REPORTS.flatMap((report) =>
  (report.accepts.lots ? GAINS_METHODS : [undefined]).map((method) => ({ report, method })),
);

beforeAll(async () => {
  requireChromium();
  ({ base, direct } = await listenForBrowser(web.app));
  accountName = 'every-report-ltd';
  const accountId = await insertAccount(web.db.url, accountName);
  await insertSpot(web.db.url, accountId, [
    { recordId: 'e1', balance: '2000', coin: 'USDT', spotTaxType: 'Deposit', amount: '2000', ts: at(2, 9) },
    {
      recordId: 'e2a',
      balance: '1000',
      coin: 'USDT',
      spotTaxType: 'Sell',
      amount: '-1000',
      bizOrderId: 'o1',
      ts: at(3, 9),
    },
    {
      recordId: 'e2b',
      balance: '0.02',
      coin: 'BTC',
      spotTaxType: 'Sell',
      amount: '0.02',
      bizOrderId: 'o1',
      ts: at(3, 9),
    },
    {
      recordId: 'e3a',
      balance: '0.01',
      coin: 'BTC',
      spotTaxType: 'Sell',
      amount: '-0.01',
      bizOrderId: 'o2',
      ts: at(10, 9),
    },
    {
      recordId: 'e3b',
      balance: '1560',
      coin: 'USDT',
      spotTaxType: 'Sell',
      amount: '560',
      bizOrderId: 'o2',
      ts: at(10, 9),
    },
    { recordId: 'e4', balance: '1561.5', coin: 'USDT', spotTaxType: 'Interest', amount: '1.5', ts: at(12, 9) },
  ]);
  await insertFuturesLedger(web.db.url, accountId, [
    {
      recordId: 'ef1',
      symbol: 'BTCUSDT',
      marginCoin: 'USDT',
      futureTaxType: 'CLOSE_LONG',
      amount: '25',
      fee: '-0.5',
      ts: Date.parse(at(15, 9)),
    },
  ]);
  // The whole history read, from before the month to now: no request warns of gaps.
  await insertCoverage(web.db.url, accountId, month.minus({ months: 1 }).toUTC().toISO()!, new Date().toISOString());
});

afterAll(async () => {
  await browsers.close();
});

/** Requests one export on the form; the browser ends on its job page. */
async function request(page: Page, report: string, method: string | undefined): Promise<void> {
  await page.goto(`${base}/`);
  await page.selectOption('select[name="accountId"]', { label: accountName });
  await page.selectOption('select[name="report"]', report);
  await page.selectOption('select[name="period"]', 'custom');
  await page.fill('input[name="from"]', from);
  await page.fill('input[name="to"]', to);
  await page.selectOption('select[name="tz"]', 'Europe/London');
  if (method !== undefined) await page.selectOption('select[name="method"]', method);
  await Promise.all([page.waitForURL(/\/jobs\/[\w-]+$/), page.click('text=Request export')]);
}

async function followToDownloads(page: Page, context: BrowserContext, label: string): Promise<void> {
  expect(await page.evaluate('document.contentType'), label).toBe('text/html');
  // The page refreshes itself until the job is done or failed.
  await page.waitForSelector('#state[data-state="completed"], #state[data-state="failed"]', { timeout: 90_000 });
  const state = await page.getAttribute('#state', 'data-state');
  const reason = state === 'failed' ? await page.textContent('td.error') : '';
  expect([label, state, await page.textContent('#state'), reason]).toEqual([
    label,
    'completed',
    'Done: ready to download',
    '',
  ]);
  const href = await page.getAttribute('#downloads a[download]', 'href');
  expect(href, label).toMatch(/^\/downloads\//);
  const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
  const file = await context.request.get(`${direct}${href}`, { headers: { cookie } });
  expect([label, file.status()]).toEqual([label, 200]);
  expect((await file.text()).length, label).toBeGreaterThan(0);
}

describe('the export form in Chromium', () => {
  it(`requests each of ${requests.length} report kinds and methods and follows it to its downloads`, async () => {
    const context = await browsers.open();
    const page = await context.newPage();
    await signInWithToken(page, base, TOKEN);
    for (const { report, method } of requests) {
      const label = `${report.name}${method ? ` --method ${method}` : ''}`;
      await request(page, report.name, method);
      expect(await page.textContent('h1'), label).toContain(report.title);
      await followToDownloads(page, context, label);
    }
  }, 600_000);

  it('shows a page, not JSON, for an address with no page and for an over-long one', async () => {
    const context = await browsers.open();
    const page = await context.newPage();
    await signInWithToken(page, base, TOKEN);
    for (const [url, title] of [
      ['/no-such-page', 'No such page'],
      [`/jobs/${'x'.repeat(400)}`, 'This address cannot be read'],
      ['/jobs/export-00000000000000000000', 'Not found'],
    ] as const) {
      const answer = await page.goto(`${base}${url}`);
      expect(answer?.headers()['content-type'], url).toMatch(/^text\/html/);
      expect(await page.textContent('h1'), url).toBe(title);
      expect(await page.textContent('body'), url).not.toMatch(/FST_ERR|"statusCode"/);
      await Promise.all([page.waitForURL(`${base}/`), page.click('a:text-is("Back to the exports page")')]);
    }
  }, 120_000);
});
