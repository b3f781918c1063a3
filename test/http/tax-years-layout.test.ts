/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';

import { DateTime } from 'luxon';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { RulesMethod } from '../../src/accounting/gains/gains-method.ts';
import { TAX_YEAR_ZONE } from '../../src/accounting/gains/tax-years.ts';
import { importPrices } from '../../src/accounting/prices/import-prices.ts';
import { exportCovered } from '../../src/export/export-covered.ts';
import { parseExportRequest } from '../../src/export/export-request.ts';
import { GAINS_WALK_STREAMS } from '../../src/export/reports/gains-source.ts';
import { yearState } from '../../src/http/year-state.ts';
import {
  insertAccount,
  insertCoverage,
  insertFuturesLedger,
  insertSpot,
  parseCsv,
  withClient,
} from '../export/seed.ts';
import { TOKEN, useWebApp } from './web-fixture.ts';

/**
 * Issue 41 item 3: the tax years page in Chromium at 1280, 800 and 390 px. It fails when any
 * text is cut or runs past the screen, when a word (a command, an amount) is broken inside itself,
 * when the labels of the figures are squeezed, when the page says something its own tables
 * contradict, and when a year's word (complete / partial / undecided) differs from the one its
 * summary CSV and manifest give. Screenshots at the three widths go to test-artifacts/.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'];
const ARTIFACTS = path.resolve('test-artifacts');
const WIDTHS = [1280, 800, 390] as const;

const web = useWebApp('taxlayout');
let base: string;
let accountId: string;
let context: BrowserContext;
let profile: string;

const day = (d: string) => `${d}T10:00:00.000Z`;
const trade = (id: string, d: string, give: [string, string], get: [string, string]) => [
  { recordId: `${id}a`, coin: give[1], spotTaxType: 'Sell', amount: `-${give[0]}`, bizOrderId: id, ts: day(d) },
  { recordId: `${id}b`, coin: get[1], spotTaxType: 'Sell', amount: get[0], bizOrderId: id, ts: day(d) },
];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: install chromium or set CHROMIUM_PATH`);
  await web.app.listen({ host: '127.0.0.1', port: 0 });
  const address = web.app.server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  accountId = await insertAccount(web.db.url, 'kensington-holdings-and-trading-ltd');
  await insertSpot(web.db.url, accountId, [
    // Moved in, no cost supplied: what it pays for is a disposal of unknown cost.
    { recordId: 'k1', coin: 'USDT', spotTaxType: 'Deposit', amount: '25000', ts: day('2024-04-10') },
    ...trade('b1', '2024-05-01', ['20000.123456789', 'USDT'], ['100', 'SOL']),
    ...trade('s1', '2024-06-03', ['40', 'SOL'], ['9600.6912345', 'USDT']),
    ...trade('s2', '2025-01-04', ['60', 'SOL'], ['14450.1311111', 'USDT']),
    // Never held: sold beyond the holdings.
    ...trade('s3', '2024-08-01', ['1', 'ETH'], ['3100.99', 'USDT']),
    // 2025: no rate to pounds or euros, so these sales have no price for the day.
    ...trade('b2', '2025-10-01', ['1000', 'USDT'], ['5', 'SOL']),
    ...trade('s4', '2025-10-20', ['5', 'SOL'], ['1100.5', 'USDT']),
  ]);
  await insertFuturesLedger(web.db.url, accountId, [
    // 2023: a whole year of futures results and nothing else, every record valued: complete.
    ...['2023-03-01', '2023-07-01'].map((d, i) => ({
      recordId: `kf${i}`,
      symbol: 'BTCUSDT',
      marginCoin: 'USDT',
      futureTaxType: 'CLOSE_LONG',
      amount: '150.123456789',
      fee: '-1.25',
      ts: Date.parse(day(d)),
    })),
    // Settled in a coin no rate values: its value is unknown, never 0.
    {
      recordId: 'kf9',
      symbol: 'BTCUSD',
      marginCoin: 'BTC',
      futureTaxType: 'CLOSE_LONG',
      amount: '0.0123',
      fee: '-0.0001',
      ts: Date.parse(day('2024-09-01')),
      productType: 'COIN-FUTURES',
    },
  ]);
  // Read from before the first year to now, but for the summer of 2025: those years are partial.
  await insertCoverage(web.db.url, accountId, '2022-12-01T00:00:00Z', '2025-06-01T00:00:00Z', GAINS_WALK_STREAMS);
  await insertCoverage(web.db.url, accountId, '2025-09-01T00:00:00Z', new Date().toISOString(), GAINS_WALK_STREAMS);
  for (const [quote, rate, zone] of [
    ['GBP', '0.79', 'Europe/London'],
    ['EUR', '0.91', 'Europe/Berlin'],
  ] as const) {
    const lines = ['date,base,quote,price,source'];
    for (let d = DateTime.fromISO('2023-01-01'); d.year < 2025; d = d.plus({ days: 1 })) {
      lines.push(`${d.toISODate()},USDT,${quote},${rate},synthetic-test`);
    }
    await withClient(web.db.url, (c) => importPrices(c, Readable.from([`${lines.join('\n')}\n`]), { zone }));
  }
  profile = await mkdtemp(path.join(tmpdir(), 'll-chromium-'));
  context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS });
}, 120_000);

afterAll(async () => {
  await context?.close();
  if (profile) await rm(profile, { recursive: true, force: true });
});

/** Every visible element whose text is cut, overflows its box or the screen, or breaks inside a word. */
async function layoutFaults(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const faults: string[] = [];
    const view = document.documentElement.clientWidth;
    const name = (el: Element) =>
      `${el.tagName.toLowerCase()}${el.className ? `.${String(el.className).replace(/ /g, '.')}` : ''} "${(el.textContent ?? '').trim().slice(0, 60)}"`;
    if (document.documentElement.scrollWidth > view + 1) {
      faults.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} > ${view}`);
    }
    // Inside a box that scrolls on its own (a wide table's .scroll), sideways is allowed.
    const inScroller = (el: Element) => {
      for (let p = el.parentElement; p; p = p.parentElement) {
        const x = getComputedStyle(p).overflowX;
        if (x === 'auto' || x === 'scroll') return true;
      }
      return false;
    };
    for (const el of document.body.querySelectorAll('*')) {
      const style = getComputedStyle(el);
      const rect = el.getBoundingClientRect();
      if (style.display === 'none' || rect.width === 0 || el.closest('details:not([open]) > :not(summary)')) continue;
      const text = (el.textContent ?? '').trim();
      if (text === '') continue;
      const scrolls = style.overflowX === 'auto' || style.overflowX === 'scroll';
      if (!scrolls && el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0 && style.display !== 'inline') {
        faults.push(`overflows its box (${el.scrollWidth} > ${el.clientWidth}): ${name(el)}`);
      }
      if (style.textOverflow === 'ellipsis' && el.scrollWidth > el.clientWidth) faults.push(`cut: ${name(el)}`);
      if (!inScroller(el) && (rect.right > view + 1 || rect.left < -1)) {
        faults.push(`outside the screen (${Math.round(rect.left)}..${Math.round(rect.right)} of ${view}): ${name(el)}`);
      }
    }
    // A command, an id, an amount or a heading broken inside a word: one of its words on two lines
    // (a heading's hyphenated word, "tax-free", may end a line at its hyphen, a long German one at
    // its soft hyphen, Anschaffungs-kosten; a command may not).
    // The figure tables' labels are sentences in 55% of a phone's width: a long German word may
    // wrap there (at its soft hyphen where it has one); every other heading keeps its words whole.
    for (const el of document.querySelectorAll(
      'code, .figure .amount, .state-word, th:not(table.filing th, table.review th)',
    )) {
      const node = el.firstChild;
      if (!node || node.nodeType !== Node.TEXT_NODE) continue;
      const value = node.textContent ?? '';
      for (const match of value.matchAll(el.tagName === 'TH' ? /[^\s\-\u00ad]+/g : /\S+/g)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (lines.size > 1) faults.push(`"${match[0]}" broken inside the word: ${name(el)}`);
      }
    }
    return faults;
  });
}

/** What the page says that its own tables contradict. */
async function contradictions(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    const text = document.body.innerText;
    const amount = (el: Element | null) => (el?.querySelector('.amount')?.textContent ?? '').replace(/[^0-9.-]/g, '');
    const nonZero = (value: string) => value !== '' && Number(value) !== 0;
    const unknownCost = [...document.querySelectorAll('[data-field="unknown_cost_proceeds"]')].filter((el) =>
      nonZero(amount(el)),
    );
    if (text.includes('Every coin moved in has a supplied cost') && unknownCost.length > 0) {
      found.push(
        `"Every coin moved in has a supplied cost" beside ${unknownCost.length} years sold from coins of unknown cost`,
      );
    }
    for (const year of document.querySelectorAll('section.filing-year')) {
      const label = `${year.getAttribute('data-method')} ${year.getAttribute('data-year')}`;
      const state = year.querySelector('.status')?.getAttribute('data-state');
      const unknowns = year.querySelectorAll('.figure .unknown, [data-field="futures_net_value"]');
      const unknownShown = [...unknowns].some((el) => /unknown/.test(el.textContent ?? ''));
      const unpriced = amount(year.querySelector('[data-field="unpriced_disposals"], [data-field="unpriced_matches"]'));
      if (
        state === 'complete' &&
        (unknownShown || nonZero(unpriced) || year.querySelector('[data-field="unknown_cost_proceeds"] .coins'))
      ) {
        found.push(`${label}: "Complete" beside values it says are unknown`);
      }
      if (state !== 'partial' && year.querySelector('ul.gaps'))
        found.push(`${label}: not partial, yet records missing`);
      // An unknown value is never a 0 beside it.
      for (const el of year.querySelectorAll('.figure, td')) {
        if (/[£€]0(\.00)? and unknown/.test(el.textContent ?? ''))
          found.push(`${label}: a 0 that is unknown: ${el.textContent}`);
      }
    }
    return found;
  });
}

/** The year's word as its summary file says it: the CSV's own cells and the manifest's `partial`. */
async function fileState(method: RulesMethod, label: string, startMs: number, endMs: number) {
  const zone = TAX_YEAR_ZONE[method];
  const to = Math.min(endMs - 1, Date.now());
  const request = parseExportRequest({
    report: 'realized-gains-summary',
    accountId,
    method,
    from: DateTime.fromMillis(startMs, { zone }).toISODate()!,
    to: DateTime.fromMillis(to, { zone }).toISODate()!,
  });
  const file = await exportCovered({
    databaseUrl: web.db.url,
    exportDir: web.exportDir,
    request,
    account: { id: accountId, name: 'kensington-holdings-and-trading-ltd' },
    partial: 'mark',
  });
  const [header, ...rows] = parseCsv(await readFile(file.csvPath, 'utf8'));
  const named = rows.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i]!])));
  const ofYear = named.filter((r) => (r.tax_year ?? r.year) === label);
  const level = (l: string) => ofYear.find((r) => r.level === l) ?? {};
  expect(file.manifest.partial).toBe(path.basename(file.csvPath).includes('_PARTIAL'));
  return yearState({
    method,
    filing: level(method === 'uk' ? 'sa108' : 'anlage-so'),
    total: level('total'),
    futures: ofYear.filter((r) => r.level === 'futures'),
    recordsMissing: file.manifest.partial,
  });
}

describe('the tax years page in Chromium', () => {
  it('shows every text whole at 1280, 800 and 390 px, never contradicts itself, and says of each year what its files say', async () => {
    const page = await context.newPage();
    await page.goto(`${base}/login`);
    await page.fill('input[name="token"]', TOKEN);
    await Promise.all([page.waitForURL(`${base}/`), page.click('button[type="submit"]')]);
    await page.goto(`${base}/tax-years/${accountId}`, { timeout: 120_000 });
    // The per-coin tables open, so their text is checked too.
    await page.locator('details.coins-of-year').evaluateAll((ds) => ds.forEach((d) => d.setAttribute('open', '')));
    await mkdir(ARTIFACTS, { recursive: true });
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      await page.screenshot({ path: path.join(ARTIFACTS, `tax-years-${width}.png`), fullPage: true });
      expect([width, await layoutFaults(page)]).toEqual([width, []]);
      expect([width, await contradictions(page)]).toEqual([width, []]);
      // The labels of the figures keep their room: never squeezed to a narrow column.
      const labels = await page.locator('table.review th').evaluateAll((ths) => ths.map((t) => t.clientWidth));
      for (const w of labels) expect(w).toBeGreaterThanOrEqual(width >= 800 ? 300 : 150);
    }

    // Each year's word is the one its summary file gives, and every kind is on the page.
    const years = await page.locator('section.filing-year').evaluateAll((ss) =>
      ss.map((s) => ({
        method: s.getAttribute('data-method') as 'uk' | 'de',
        label: s.getAttribute('data-year')!,
        state: s.querySelector('.status')!.getAttribute('data-state')!,
        word: s.querySelector('.state-word')!.textContent!,
        start: Number(s.getAttribute('data-start')),
        end: Number(s.getAttribute('data-end')),
      })),
    );
    expect(new Set(years.map((y) => y.state))).toEqual(new Set(['complete', 'partial', 'undecided']));
    for (const y of years) {
      expect([y.method, y.label, y.state]).toEqual([
        y.method,
        y.label,
        await fileState(y.method, y.label, y.start, y.end),
      ]);
      expect(y.word.toLowerCase()).toBe(`${y.state}.`);
    }
    // The seed's years, by name: futures only in 2023 (complete); unknown cost in 2024; a gap in 2025.
    const stateOf = (method: string, label: string) =>
      years.find((y) => y.method === method && y.label === label)?.state;
    expect([stateOf('de', '2023'), stateOf('de', '2024'), stateOf('de', '2025')]).toEqual([
      'complete',
      'undecided',
      'partial',
    ]);

    // Money to 2 decimals; unknown values in words; UK times in London's; no exchange product names.
    const uk = page.locator('section.filing-year[data-method="uk"][data-year="2024-25"]');
    const text = (await uk.innerText()).replace(/\s+/g, ' ');
    expect(text).not.toMatch(/[£€]-?[\d,]+\.\d{3,}/);
    expect(text).toMatch(/unknown \(1 record without a rate\)/);
    const body = await page.locator('body').innerText();
    expect(body).not.toMatch(/COIN-FUTURES|USDT-FUTURES|unmapped|\bUTC\b/);
    expect(await page.locator('section.filing-year[data-method="uk"] ul.gaps').first().innerText()).toMatch(
      /London time/,
    );
    await page.close();
  }, 300_000);

  it('leads from a figure to its rows: each a table row of the rows table, its exchange records under it, whole at every width', async () => {
    const page = await context.newPage();
    await page.goto(`${base}/login`);
    await page.fill('input[name="token"]', TOKEN);
    await Promise.all([page.waitForURL(`${base}/`), page.click('button[type="submit"]')]);
    for (const [method, year, kind] of [
      ['uk', '2024-25', 'gains'],
      ['de', '2024', 'gains'],
      ['de', '2023', 'futures'],
    ] as const) {
      await page.goto(`${base}/tax-years/${accountId}`, { timeout: 120_000 });
      await page.locator('details.coins-of-year').evaluateAll((ds) => ds.forEach((d) => d.setAttribute('open', '')));
      const section = page.locator(`section.filing-year[data-method="${method}"][data-year="${year}"]`);
      const link = section.locator(`a[href*="/${method}/${year}/${kind}"]`).first();
      await Promise.all([page.waitForURL(new RegExp(`/${kind}`)), link.click()]);
      const label = `${method} ${year} ${kind}`;
      // As Chromium built the table: rows inside it, as many cells as headings, none run together.
      const shape = await page.evaluate(() => {
        // The gains rows stand in .rows with their exchange records under each; a futures line's rows are the records.
        const table = document.querySelector('.rows > table') ?? document.querySelector('body table');
        if (table === null) return { missing: `${location.pathname}: ${document.body.innerText.slice(0, 300)}` };
        const headings = table.querySelectorAll(':scope > thead th').length;
        const rows = [...table.querySelectorAll(':scope > tbody > tr:not(.records-row)')];
        return {
          headings,
          rows: rows.length,
          cells: [...new Set(rows.map((r) => r.querySelectorAll(':scope > td').length))],
          outside: [...document.querySelectorAll('.rows > :not(table):not(.pager)')].map((e) =>
            e.tagName.toLowerCase(),
          ),
        };
      });
      expect([label, shape.missing, shape.rows! > 0, shape.cells, shape.outside]).toEqual([
        label,
        undefined,
        true,
        [shape.headings],
        [],
      ]);
      if (kind === 'gains') {
        const records = page.locator('.rows > table > tbody > tr.records-row details').first();
        await records.locator('summary').click();
        expect(await records.locator('code.id').count(), label).toBeGreaterThan(0);
      }
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: 900 });
        await page.screenshot({ path: path.join(ARTIFACTS, `rows-${method}-${kind}-${width}.png`), fullPage: true });
        expect([label, width, await layoutFaults(page)]).toEqual([label, width, []]);
      }
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    await page.close();
  }, 300_000);
});
