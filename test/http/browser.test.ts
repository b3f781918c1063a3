import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';

import { Decimal } from 'decimal.js';
import { DateTime } from 'luxon';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { importPrices } from '../../src/accounting/prices/import-prices.ts';
import { GAINS_WALK_STREAMS } from '../../src/export/reports/gains-source.ts';
import {
  insertAccount,
  insertCoverage,
  insertFuturesLedger,
  insertSpot,
  parseCsv,
  withClient,
} from '../export/seed.ts';
import { Browsers, OFFICE_HOST, requireChromium } from '../helpers/chromium.ts';
import { insertReconciliation, insertWindows } from './coverage-seed.ts';
import { TOKEN, useWebApp } from './web-fixture.ts';

/**
 * Debian's chromium, driven by playwright-core, signs in over plain HTTP from an office address
 * (not localhost: the browser sends no fetch metadata there, so only the CSRF token protects the
 * forms), requests a report, waits for it on the page, downloads it and gets exactly the records;
 * without the token it gets nothing. Screenshots of the main pages go to test-artifacts/screenshots.
 */
const SCREENSHOTS = path.resolve('test-artifacts/screenshots');
const web = useWebApp('browser');
let base: string;
// The same server by its loopback address, for requests made outside the browser (Node's resolver
// does not know the office host name), with the browser's cookies passed on by hand.
let direct: string;
// The fetch metadata each sign-in form post arrived with (none is expected from an HTTP origin).
const signInPosts: Array<string | undefined> = [];
let accountId: string;

// Every browser gets a new, empty profile: no cookie survives from one context to another.
const browsers = new Browsers();
const browser = () => browsers.open();

/** Full-page screenshots at a desktop, an 800 px and a phone width. */
async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(SCREENSHOTS, { recursive: true });
  for (const [suffix, width, height] of [
    ['', 1280, 900],
    ['-800px', 800, 900],
    ['-phone', 390, 844],
  ] as const) {
    await page.setViewportSize({ width, height });
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}${suffix}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

beforeAll(async () => {
  requireChromium();
  web.app.addHook('onRequest', async (request) => {
    if (request.method === 'POST' && request.url === '/login') {
      signInPosts.push(request.headers['sec-fetch-site'] as string | undefined);
    }
  });
  await web.app.listen({ host: '127.0.0.1', port: 0 });
  const address = web.app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  base = `http://${OFFICE_HOST}:${port}`;
  direct = `http://127.0.0.1:${port}`;
  accountId = await insertAccount(web.db.url, 'berlin-gmbh');
  await insertSpot(web.db.url, accountId, [
    // 23:30 UTC on 31 December is already January in Berlin: in the January report.
    // Before the period: only in the balance chart.
    {
      recordId: '8001',
      coin: 'BTC',
      spotTaxType: 'Deposit',
      amount: '0.05',
      balance: '0.05',
      ts: '2025-10-02T08:00:00Z',
    },
    {
      recordId: '8002',
      coin: 'USDT',
      spotTaxType: 'Deposit',
      amount: '10000',
      balance: '10000',
      ts: '2025-11-03T08:00:00Z',
    },
    {
      recordId: '9001',
      coin: 'BTC',
      spotTaxType: 'Deposit',
      amount: '0.12345678',
      balance: '0.17345678',
      ts: '2025-12-31T23:30:00Z',
    },
    {
      recordId: '9002',
      coin: 'USDT',
      spotTaxType: 'Sell',
      amount: '-1500.50',
      fee: '-1.5',
      balance: '8498',
      ts: '2026-01-15T09:00:00Z',
    },
    // The newest record, in November 2026: the charts' twelve months start in December 2025, so
    // the year boundary falls between their first two bars (where "2025" and "2026" once ran together).
    {
      recordId: '9100',
      coin: 'ETH',
      spotTaxType: 'Deposit',
      amount: '2.5',
      balance: '2.5',
      ts: '2026-11-02T08:00:00Z',
    },
    // 23:00 UTC on 31 January is February in Berlin: not in it.
    {
      recordId: '9004',
      coin: 'BTC',
      spotTaxType: 'Deposit',
      amount: '1',
      balance: '1.17345678',
      ts: '2026-01-31T23:00:00Z',
    },
  ]);
  // Spot read up to 20 January, the rest of January failed: a January report is partial.
  await insertWindows(web.db.url, accountId, [
    { stream: 'spot', start: '2025-10-01T00:00:00Z', end: '2026-01-20T00:00:00Z', status: 'done' },
    {
      stream: 'spot',
      start: '2026-01-20T00:00:00Z',
      end: '2026-02-01T00:00:00Z',
      status: 'failed',
      lastError: 'HTTP 503',
    },
    {
      stream: 'positions',
      scope: 'USDT-FUTURES',
      start: '2025-09-01T00:00:00Z',
      end: '2026-01-25T00:00:00Z',
      status: 'done',
    },
    {
      stream: 'positions',
      scope: 'USDT-FUTURES',
      start: '2026-01-25T00:00:00Z',
      end: '2026-02-01T00:00:00Z',
      status: 'running',
    },
  ]);
  await insertReconciliation(web.db.url, accountId, {
    passed: true,
    summary: 'every check passed',
    finishedAt: '2026-01-20T02:10:00Z',
  });
});

afterAll(async () => {
  await browsers.close();
});

describe('the accountants page in a real browser', () => {
  it('signs in over plain HTTP from an office address, requests a report, watches it finish and downloads exactly the records', async () => {
    const context = await browser();
    // Nothing the pages load may come from anywhere but the server (it must work offline).
    const elsewhere: string[] = [];
    context.on('request', (request) => {
      const url = new URL(request.url());
      if (!['data:', 'blob:'].includes(url.protocol) && url.host !== new URL(base).host) elsewhere.push(request.url());
    });
    const page = await context.newPage();
    await page.goto(`${base}/`);
    expect(new URL(page.url()).pathname).toBe('/login');
    await screenshot(page, 'sign-in');

    await page.fill('input[name="token"]', TOKEN);
    await Promise.all([page.waitForURL(`${base}/`), page.click('button[type="submit"]')]);
    expect(await page.textContent('h1')).toBe('Exports');
    // The browser sent no Sec-Fetch-Site to this origin: the CSRF token alone let the form through.
    expect(signInPosts).toEqual([undefined]);
    // The coverage timeline: spot covered to 20 January, then failed.
    expect(await page.locator('svg.timeline').count()).toBe(2);
    expect(await page.locator('svg.timeline title').allTextContents()).toContain('covered: 2025-10-01 to 2026-01-20');
    expect(await page.textContent('.coverage')).toContain('Last reconciliation 2026-01-20 02:10 UTC');
    expect(await page.locator('svg.balance-chart title').allTextContents()).toContain('2026-01: 1.17345678 BTC');
    // Positions not read since 25 January lie beyond the exchange's 90-day horizon: told apart from "never read".
    expect(await page.textContent('.legend')).toContain("beyond the exchange's horizon: not recoverable");
    expect((await page.locator('svg.timeline title').allTextContents()).join('\n')).toContain(
      "beyond the exchange's horizon: not recoverable: 2026-01-25 to",
    );
    // The timeline's axis labels never run into each other, at any width.
    for (const width of [1280, 800, 390]) {
      await page.setViewportSize({ width, height: 900 });
      const boxes = await page.locator('.timeline-axis .tick').evaluateAll((ticks) =>
        ticks
          .filter(
            (t) =>
              t.ownerDocument.defaultView!.getComputedStyle(t).color !== 'rgba(0, 0, 0, 0)' &&
              t.textContent!.trim() !== '',
          )
          .map((t) => t.getBoundingClientRect())
          .map((r) => ({ left: r.left, right: r.right })),
      );
      expect(boxes.length).toBeGreaterThanOrEqual(width > 500 ? 2 : 1);
      // ... nor past the end of the bar.
      const bar = await page.locator('.timeline-axis').first().boundingBox();
      for (const box of boxes) expect(box.right).toBeLessThanOrEqual(bar!.x + bar!.width + 1);
      for (let k = 1; k < boxes.length; k++) expect(boxes[k]!.left).toBeGreaterThanOrEqual(boxes[k - 1]!.right);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    // Only the fields the chosen report takes: the lot fields for realized gains, not for the spot ledger.
    await page.selectOption('select[name="report"]', 'spot-ledger');
    expect(await page.isVisible('select[name="method"]')).toBe(false);
    expect(await page.isVisible('input[name="includePending"]')).toBe(false);
    await page.selectOption('select[name="report"]', 'realized-gains');
    expect(await page.isVisible('select[name="method"]')).toBe(true);
    await screenshot(page, 'request-realized-gains');
    await screenshot(page, 'home');
    // A coin named like a formula, added after the screenshots (docs/web-page.png is made from
    // them, and shows realistic data): the CSV must guard it.
    await insertSpot(web.db.url, accountId, [
      { recordId: '9003', coin: '=cmd', spotTaxType: 'Interest', amount: '0.01', ts: '2026-01-20T09:00:00Z' },
    ]);

    await page.selectOption('select[name="accountId"]', { label: 'berlin-gmbh' });
    await page.selectOption('select[name="report"]', 'spot-ledger');
    await page.fill('input[name="from"]', '2026-01-01');
    await page.fill('input[name="to"]', '2026-01-31');
    await page.selectOption('select[name="tz"]', 'Europe/Berlin');
    // Warned before the request: January is not fully read. The form keeps what was typed.
    await page.click('text=Request export');
    await page.waitForSelector('.warning');
    expect(await page.textContent('.warning')).toContain('Spot records: not read from 2026-01-20 00:00 UTC');
    expect(await page.inputValue('select[name="tz"]')).toBe('Europe/Berlin');
    expect(await page.inputValue('input[name="from"]')).toBe('2026-01-01');
    await screenshot(page, 'partial-warning');
    await page.check('input[name="acceptPartial"]');
    await Promise.all([page.waitForURL(/\/jobs\//), page.click('text=Request export')]);

    // The job page refreshes itself until the export is done.
    await page.waitForSelector('#downloads a', { timeout: 20_000 });
    expect(await page.getAttribute('#state', 'data-state')).toBe('completed');
    expect(await page.textContent('#state')).toBe('Done: ready to download');
    expect(await page.textContent('#coverage')).toContain('partial');
    await screenshot(page, 'export-done');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#downloads a:text-is("CSV")')]);
    // The period is not fully synced: the file says so in its name as well as on the page.
    expect(download.suggestedFilename()).toBe('spot-ledger_2026-01-01_2026-01-31_Europe~Berlin_PARTIAL.csv');
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
      ['spot:9001', '2026-01-01T00:30:00.000+01:00', 'BTC', 'deposit', '0.12345678', '0'],
      ['spot:9002', '2026-01-15T10:00:00.000+01:00', 'USDT', 'trade', '-1500.50', '-1.5'],
      ['spot:9003', '2026-01-20T10:00:00.000+01:00', "'=cmd", 'income', '0.01', '0'],
    ]);

    const [manifestDownload] = await Promise.all([
      page.waitForEvent('download'),
      page.click('#downloads a:text-is("file details")'),
    ]);
    const manifest = JSON.parse(await readFile((await manifestDownload.path())!, 'utf8')) as Record<string, unknown>;
    expect(manifest.sha256).toBe(createHash('sha256').update(content).digest('hex'));
    expect(manifest.rowCount).toBe(3);
    expect(manifest.partial).toBe(true);

    // The finished export is listed on the home page too.
    await page.goto(`${base}/`);
    expect(await page.locator('a[href$="spot-ledger_2026-01-01_2026-01-31_Europe~Berlin_PARTIAL.csv"]').count()).toBe(
      1,
    );
    await screenshot(page, 'exports');

    // The accountants' queue board is the read-only one; the admin's is refused.
    await page.click('nav a:text("Queues")');
    expect(new URL(page.url()).pathname).toBe('/queues');
    await page.waitForSelector('text=Queues (read-only)');
    await page.waitForLoadState('networkidle');
    await screenshot(page, 'queues-read-only');
    const signedIn = { cookie: (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ') };
    expect((await context.request.get(`${direct}/queues/api/queues`, { headers: signedIn })).status()).toBe(200);
    expect((await context.request.get(`${direct}/admin/queues/api/queues`, { headers: signedIn })).status()).toBe(403);

    expect(elsewhere).toEqual([]);
    // Signing out ends the session on the server: a request with the old cookie is refused.
    await page.goto(`${base}/`);
    await Promise.all([page.waitForURL(`${base}/login`), page.click('button:text("Sign out")')]);
    const replay = await context.request.get(`${direct}/queues/api/queues`, { headers: signedIn });
    expect(replay.status()).toBe(401);
  }, 120_000); // a real browser, three widths of screenshots of five pages: slow on a loaded machine

  it('reads plainly at 1280, 800 and 390 px: no label touches another across the year boundary, dated axis, figures without hover, plain words', async () => {
    const context = await browser();
    const page = await context.newPage();
    await page.goto(`${base}/login`);
    await page.fill('input[name="token"]', TOKEN);
    await Promise.all([page.waitForURL(`${base}/`), page.click('button[type="submit"]')]);
    for (const width of [1280, 800, 390]) {
      await page.setViewportSize({ width, height: 900 });
      // Every label of every balance chart, on screen, as drawn: none overlaps another on its line.
      const charts = await page.locator('svg.balance-chart').evaluateAll((svgs) =>
        svgs.map((svg) =>
          [...svg.querySelectorAll('text')].map((t) => {
            const r = t.getBoundingClientRect();
            return { text: t.textContent!.trim(), left: r.left, right: r.right, top: r.top, bottom: r.bottom };
          }),
        ),
      );
      expect(charts.length).toBeGreaterThan(0);
      for (const labels of charts) {
        for (const [k, a] of labels.entries()) {
          for (const b of labels.slice(k + 1)) {
            const apart = a.right <= b.left || b.right <= a.left || a.bottom <= b.top || b.bottom <= a.top;
            expect(apart, `"${a.text}" and "${b.text}" overlap at ${width} px`).toBe(true);
          }
        }
      }
      // The year boundary is in view, between the first two bars: the new year is labelled on its
      // own (no "20252026"); the range, December 2025 included, is said in words above the charts.
      const btc = charts.find((labels) => labels.some((l) => l.text === 'BTC'))!;
      expect(btc.map((l) => l.text)).toContain('2026');
      expect(btc.map((l) => l.text)).toContain('Dec');
      expect(await page.textContent('p.hint')).toMatch(/Dec 2025 to\s+Nov 2026/);
      // The coverage axis is dated at both ends.
      const span = await page.textContent('.timeline-span');
      expect(span).toMatch(/from 2025-09-01\s*to \d{4}-\d{2}-\d{2} \(now\)/);
    }
    // The figures the bars stand for, readable without hovering: one click on a phone or a desk.
    const btcFigure = page.locator('figure.balance', { hasText: 'BTC' }).first();
    await btcFigure.locator('summary').click();
    expect(await btcFigure.locator('details.figures').textContent()).toMatch(/Jan 2026\s+1\.17345678/);
    // Plain words, the technical term in the tooltip.
    const futures = page.locator('.timeline-label abbr[title="USDT-FUTURES"]');
    expect(await futures.textContent()).toBe('USDT-margined futures');
    // The gains methods grouped: lot orders apart from jurisdictions' filing rules.
    const groups = await page
      .locator('select[name="method"] optgroup')
      .evaluateAll((gs) =>
        gs.map(
          (g) =>
            `${g.getAttribute('label')}: ${[...g.querySelectorAll('option')].map((o) => o.textContent!.trim()).join(', ')}`,
        ),
      );
    expect(groups).toEqual([
      'Lots: FIFO, LIFO, HIFO, average',
      'Filing rules: UK (HMRC share matching), Germany (§ 23 EStG)',
    ]);
  });

  it('shows per tax year the SA108 and Anlage SO figures, complete or not, equal to the summary CSV’s, and what lacks a cost', async () => {
    // An account of its own (after the other tests' pages and screenshots): a year of trades
    // against USDT, rates to pounds (London dates) and euros (Berlin dates), futures results.
    const london = await insertAccount(web.db.url, 'london-ltd');
    const day = (d: string) => `${d}T10:00:00.000Z`;
    const trade = (id: string, d: string, give: [string, string], get: [string, string]) => [
      { recordId: `${id}a`, coin: give[1], spotTaxType: 'Sell', amount: `-${give[0]}`, bizOrderId: id, ts: day(d) },
      { recordId: `${id}b`, coin: get[1], spotTaxType: 'Sell', amount: get[0], bizOrderId: id, ts: day(d) },
    ];
    await insertSpot(web.db.url, london, [
      // Moved in: no cost known (the USDT paying for the SOL is a disposal of unknown cost).
      { recordId: 'l1', coin: 'USDT', spotTaxType: 'Deposit', amount: '5000', ts: day('2024-04-10') },
      ...trade('b1', '2024-05-01', ['1000.5', 'USDT'], ['10', 'SOL']),
      ...trade('s1', '2024-06-03', ['4', 'SOL'], ['600.69', 'USDT']),
      ...trade('s2', '2024-07-04', ['6', 'SOL'], ['450.13', 'USDT']),
      // Never held: sold beyond the holdings.
      ...trade('s3', '2024-08-01', ['1', 'ETH'], ['100.99', 'USDT']),
      { recordId: 'l2', coin: 'USDT', spotTaxType: 'Interest', amount: '12.5', ts: day('2024-07-01') },
    ]);
    await insertFuturesLedger(web.db.url, london, [
      {
        recordId: 'lf1',
        symbol: 'BTCUSDT',
        marginCoin: 'USDT',
        futureTaxType: 'CLOSE_LONG',
        amount: '50.5',
        fee: '-1.25',
        ts: Date.parse('2024-09-01T10:00:00Z'),
      },
    ]);
    // Read from before the first Berlin year to now: every past year complete.
    // (the streams the gains walk reads: spot, the futures ledger and every wallet ledger).
    await insertCoverage(web.db.url, london, '2023-12-01T00:00:00Z', new Date().toISOString(), GAINS_WALK_STREAMS);
    for (const [quote, rate, zone] of [
      ['GBP', '0.8', 'Europe/London'],
      ['EUR', '0.9', 'Europe/Berlin'],
    ] as const) {
      const lines = ['date,base,quote,price,source'];
      for (let d = DateTime.fromISO('2024-04-01'); d.year < 2025; d = d.plus({ days: 1 })) {
        lines.push(`${d.toISODate()},USDT,${quote},${rate},synthetic-test`);
      }
      await withClient(web.db.url, (c) => importPrices(c, Readable.from([`${lines.join('\n')}\n`]), { zone }));
    }

    const context = await browser();
    const page = await context.newPage();
    await page.goto(`${base}/login`);
    await page.fill('input[name="token"]', TOKEN);
    await Promise.all([page.waitForURL(`${base}/`), page.click('button[type="submit"]')]);
    // Issue 33 item 3: the accountants' page lists what lacks a cost.
    expect(await page.locator('table', { hasText: 'Lacking a cost' }).last().textContent()).toMatch(/USDT\s*1\s*5000/);
    await Promise.all([page.waitForURL(/\/tax-years\//), page.click(`a.tax-years[href="/tax-years/${london}"]`)]);
    expect(await page.textContent('h1')).toBe('Tax years: london-ltd');
    await screenshot(page, 'tax-years');

    const signedIn = { cookie: (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ') };
    const summaryCsv = async (method: string, from: string, to: string) => {
      const query = new URLSearchParams({ accountId: london, from, to, method });
      const answer = await context.request.get(`${direct}/stream/realized-gains-summary?${query}`, {
        headers: signedIn,
      });
      expect(answer.status()).toBe(200);
      const [header, ...rows] = parseCsv(await answer.text());
      const named = rows.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i]!])));
      return { filing: (level: string) => named.find((r) => r.level === level)!, rows: named };
    };
    // The page writes £1,151 where the file has 1151: only the sign and commas differ.
    const shown = async (section: string, field: string) =>
      (await page
        .locator(`${section} [data-field="${field}"] .figure, ${section} td[data-field="${field}"]`)
        .first()
        .textContent())!
        .trim()
        .replace(/[£€,]/g, '')
        .replace(/\s+/g, ' ');
    // Money on the page to 2 decimals, half up (whole figures stay whole); the file keeps every decimal.
    const cents = (value: string) =>
      value.includes('.') ? new Decimal(value).toFixed(2, Decimal.ROUND_HALF_UP) : value;

    const uk = 'section.filing-year[data-method="uk"][data-year="2024-25"]';
    expect(await page.textContent(`${uk} h3`)).toBe('tax year 2024-25 (6 Apr 2024 - 5 Apr 2025)');
    expect(await page.getAttribute(`${uk} .status`, 'data-state')).toBe('undecided');
    const ukCsv = await summaryCsv('uk', '2024-04-06', '2025-04-05');
    const sa108 = ukCsv.filing('sa108');
    expect(sa108.complete).toBe('true');
    for (const field of ['disposals', 'proceeds', 'allowable_costs', 'gains', 'losses', 'unpriced_disposals']) {
      expect([field, await shown(uk, field)]).toEqual([
        field,
        // Beside each sum, what it leaves out: the disposals of unknown value, counted.
        sa108[field] + (['disposals', 'unpriced_disposals'].includes(field) ? '' : ' and unknown (1 disposal)'),
      ]);
    }
    expect(sa108.unpriced_disposals).toBe('1');
    // The figures are real ones: a gain, a loss, a part beyond the holdings and one of unknown cost.
    expect([sa108.gains, sa108.losses, sa108.beyond_holdings_proceeds]).toEqual(['241', '121', '80']);
    expect(await shown(uk, 'unknown_cost_proceeds')).toBe(`${sa108.unknown_cost_proceeds} received 1000.50 USDT`);
    expect(Number(sa108.unknown_cost_proceeds)).toBeGreaterThan(0);
    expect(await shown(uk, 'beyond_holdings_proceeds')).toBe(`${sa108.beyond_holdings_proceeds} received 1 ETH`);
    expect(await page.textContent(`${uk} .rule`)).toContain('round down income and round up expenses');
    const ukFutures = ukCsv.rows.find((r) => r.level === 'futures')!;
    expect(await shown(uk, 'futures_net')).toBe(`${cents(ukFutures.futures_net!)} USDT`);
    expect(await shown(uk, 'futures_net_value')).toBe(cents(ukFutures.futures_net_value!));
    expect(ukFutures.futures_net_value).toBe('39.4');

    const de = 'section.filing-year[data-method="de"][data-year="2024"]';
    expect(await page.textContent(`${de} h3`)).toBe('calendar year 2024 (1 Jan - 31 Dec 2024)');
    expect(await page.getAttribute(`${de} .status`, 'data-state')).toBe('undecided');
    const deCsv = await summaryCsv('de', '2024-01-01', '2024-12-31');
    const so = deCsv.filing('anlage-so');
    for (const field of ['taxable_proceeds', 'taxable_cost', 'taxable_gain', 'other_income', 'unpriced_matches']) {
      const leftOut = ['taxable_proceeds', 'taxable_cost', 'taxable_gain'].includes(field);
      expect([field, await shown(de, field)]).toEqual([
        field,
        so[field] + (leftOut ? ` and unknown (${so.unpriced_matches} sales)` : ''),
      ]);
    }
    expect(so.unpriced_matches).toBe('2');
    // The Freigrenze decision of the year's total row, in words.
    const total = deCsv.filing('total');
    // EStG section 23 (3) sentence 5: 136.18 of taxable gain is under EUR 1,000, but with the
    // USDT of unknown cost at cost 0 it would be 1,037.75: not decided until that cost is known.
    expect([total.below_freigrenze, total.taxable_gain]).toEqual(['undecided', '136.179']);
    const decision = (await page.textContent(`${de} [data-field="below_freigrenze"]`))!.replace(/\s+/g, ' ');
    expect(decision).toContain('Not decided: whether the year reaches the Freigrenze of €1,000 depends on the cost');
    expect(await shown(de, 'futures_net_value')).toBe(
      cents(deCsv.rows.find((r) => r.level === 'futures')!.futures_net_value!),
    );

    // The year still running is marked: its figures are part of a year.
    const running = DateTime.now().setZone('Europe/London');
    const label = running.month > 4 || (running.month === 4 && running.day >= 6) ? running.year : running.year - 1;
    const current = `section.filing-year[data-method="uk"][data-year="${label}-${String((label + 1) % 100).padStart(2, '0')}"]`;
    expect(await page.textContent(`${current} .status`)).toContain('Partial.');
    expect(await page.textContent(`${current} .status`)).toContain('The year is not over');
  }, 120_000);

  it('refuses the pages and the download to a browser without the token', async () => {
    const context = await browser();
    const page = await context.newPage();
    const csv = `${direct}/downloads/${accountId}/spot-ledger_2026-01-01_2026-01-31_Europe~Berlin_PARTIAL.csv`;
    const refused = await context.request.get(csv);
    expect(refused.status()).toBe(401);
    expect(await refused.text()).not.toContain('9001');
    await page.goto(`${base}/admin/queues`);
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.fill('input[name="token"]', 'not-the-token');
    await page.click('button[type="submit"]');
    expect(await page.textContent('[role="alert"]')).toBe('That token is not valid.');
    expect((await context.request.get(csv)).status()).toBe(401);
    expect((await context.cookies()).map((c) => c.name)).toEqual(['ll_csrf']);
  });
});
