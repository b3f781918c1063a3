import { readFile } from 'node:fs/promises';
import path from 'node:path';

import ExcelJS from 'exceljs';
import { DateTime } from 'luxon';
import { beforeAll, describe, expect, it } from 'vitest';

import { exportJobIdOf } from '../../jobs/payloads/export-job.ts';
import { parseExportRequest } from '../../src/export/export-request.ts';
import { exportToFile } from '../../src/export/export-to-file.ts';
import { presetDates } from '../../src/http/period-presets.ts';
import { insertAccount, insertCoverage, insertSpot } from '../export/seed.ts';
import { insertReconciliation, insertWindows } from './coverage-seed.ts';
import { ADMIN_TOKEN, signIn, TOKEN, useWebApp } from './web-fixture.ts';

const web = useWebApp('webapp');
let accountId: string;
let cookie: string;
let csrf: string;
let setCookie: string;

/** A page's HTML with every run of white space made one space (the templates are formatted). */
const flat = (response: { body: string }) => response.body.replace(/\s+/g, ' ');

async function waitForState(jobId: string, state: string) {
  for (let i = 0; i < 200; i++) {
    const job = await web.queue.getJob(jobId);
    // Read again once in that state: the copy read before its state can predate it.
    if ((await job?.getState()) === state) return (await web.queue.getJob(jobId))!;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`job ${jobId} never reached ${state}`);
}

beforeAll(async () => {
  accountId = await insertAccount(web.db.url, 'acme <script>');
  await insertSpot(web.db.url, accountId, [
    { recordId: 'r1', coin: 'BTC', spotTaxType: 'Deposit', amount: '0.5', ts: '2026-01-05T10:00:00Z' },
    {
      recordId: 'r2',
      coin: 'BTC',
      spotTaxType: 'Withdrawal',
      amount: '-0.25',
      fee: '-0.0001',
      ts: '2026-01-06T10:00:00Z',
    },
  ]);
  // Spot records are read from December to February; March failed; nothing else was ever read.
  await insertWindows(web.db.url, accountId, [
    { stream: 'spot', start: '2025-12-01T00:00:00Z', end: '2026-01-15T00:00:00Z', status: 'done' },
    { stream: 'spot', start: '2026-01-15T00:00:00Z', end: '2026-03-01T00:00:00Z', status: 'done' },
    {
      stream: 'spot',
      start: '2026-03-01T00:00:00Z',
      end: '2026-03-31T00:00:00Z',
      status: 'failed',
      lastError: 'HTTP 500',
    },
  ]);
  await insertReconciliation(web.db.url, accountId, {
    passed: false,
    summary: 'coverage gaps: ok\nspot balance continuity: FAILED (BTC jumps on 2026-01-06)',
    finishedAt: '2026-03-02T02:10:00Z',
  });
  ({ cookie, csrf, setCookie } = await signIn(web.app, TOKEN));
});

describe('sign-in', () => {
  it('refuses every page, download, API and dashboard request without the token', async () => {
    const file = `/downloads/${accountId}/spot-ledger_2026-01-01_2026-01-31_UTC.csv`;
    const cases: Array<[string, string, Record<string, string>]> = [
      ['GET', '/', { accept: 'text/html' }],
      ['GET', '/jobs/anything', { accept: 'text/html' }],
      ['GET', '/admin/queues', { accept: 'text/html' }],
      ['GET', '/admin/queues/api/queues', { accept: 'application/json' }],
      ['GET', file, { accept: 'text/html' }],
      ['GET', `/stream/spot-ledger?accountId=${accountId}&from=2026-01-01&to=2026-01-31`, {}],
      ['POST', '/exports', { 'content-type': 'application/x-www-form-urlencoded' }],
    ];
    for (const [method, url, headers] of cases) {
      for (const extra of [{}, { cookie: 'll_session=forged' }, { authorization: 'Bearer wrong-token' }]) {
        const response = await web.app.inject({ method: method as 'GET', url, headers: { ...headers, ...extra } });
        const page = method === 'GET' && headers.accept === 'text/html' && !url.startsWith('/downloads');
        expect(response.statusCode, `${method} ${url}`).toBe(page ? 303 : 401);
        if (page) expect(response.headers.location).toBe('/login');
        expect(response.body).not.toContain('acme');
      }
    }
  });

  it('rejects a wrong token on the sign-in form and accepts the right one', async () => {
    const wrong = await web.app.inject({
      method: 'POST',
      url: '/login',
      payload: `token=nope&_csrf=${encodeURIComponent(csrf)}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookie.split(';')[0]! },
    });
    expect(wrong.statusCode).toBe(401);
    expect(String(wrong.headers['set-cookie'] ?? '')).not.toContain('ll_session');
    const page = await web.app.inject({ method: 'GET', url: '/', headers: { cookie } });
    expect(page.statusCode).toBe(200);
    // Names from the database are escaped, never markup.
    expect(page.body).toContain('acme &lt;script&gt;');
    expect(page.body).not.toContain('acme <script>');
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    // A signed random session id, HttpOnly and SameSite=Strict, never the token; not Secure over plain HTTP.
    expect(setCookie).toMatch(/ll_session=[^;]+; Path=\/; Expires=[^;]+; HttpOnly; SameSite=Strict$/);
    expect(setCookie).not.toMatch(/Secure/);
    expect(setCookie).not.toContain(TOKEN);
  });

  it('accepts the token as a bearer token for scripts; accountants see the read-only board, the admin the other', async () => {
    const get = (url: string, headers: Record<string, string>) => web.app.inject({ method: 'GET', url, headers });
    const board = await get('/queues', { authorization: `Bearer ${TOKEN}` });
    expect(board.statusCode).toBe(200);
    expect(board.body).toContain('<title>Queues (read-only)</title>');
    const api = await get('/queues/api/queues', { cookie });
    expect(api.statusCode).toBe(200);
    expect(api.body).toContain('export');
    expect(JSON.parse(api.body).queues.every((q: { readOnlyMode: boolean }) => q.readOnlyMode)).toBe(true);
    expect((await get('/admin/queues', { cookie })).statusCode).toBe(403);
    expect((await get('/admin/queues/api/queues', { authorization: `Bearer ${TOKEN}` })).statusCode).toBe(403);
    const admin = await get('/admin/queues/api/queues', { authorization: `Bearer ${ADMIN_TOKEN}` });
    expect(admin.statusCode).toBe(200);
    expect(JSON.parse(admin.body).queues.some((q: { readOnlyMode: boolean }) => q.readOnlyMode)).toBe(false);
  });
});

describe('resources', () => {
  it('no page, the queue boards included, loads anything from the internet (it works offline)', async () => {
    const get = (url: string, headers: Record<string, string> = {}) => web.app.inject({ method: 'GET', url, headers });
    const pages = [
      await get('/login'),
      await get('/', { cookie }),
      await get('/queues', { authorization: `Bearer ${TOKEN}` }),
      await get('/admin/queues', { authorization: `Bearer ${ADMIN_TOKEN}` }),
    ];
    const external = /\b(?:href|src)\s*=\s*["']?(?:https?:)?\/\/|@import|url\(\s*["']?(?:https?:)?\/\//i;
    for (const page of pages) {
      expect(page.statusCode).toBe(200);
      expect(page.body).not.toMatch(external);
      // What the board's page loads of its own: its styles must not import from the internet either.
      for (const [, href] of page.body.matchAll(/<link[^>]+href="([^"]+\.css)"/g)) {
        const base = page.body.includes('Queues (admin)') ? '/admin/queues/' : '/queues/';
        const css = await get(base + href!, { authorization: `Bearer ${base === '/queues/' ? TOKEN : ADMIN_TOKEN}` });
        expect(css.statusCode).toBe(200);
        expect(css.body).not.toMatch(external);
      }
    }
    expect(pages[2]!.body).toContain('<title>Queues (read-only)</title>');
  });
});

describe('exports', () => {
  it('requests a report, shows it running then done, and serves the CSV and manifest', async () => {
    const form = new URLSearchParams({
      accountId,
      report: 'spot-ledger',
      from: '2026-01-01',
      to: '2026-01-31',
      tz: 'UTC',
      _csrf: csrf,
    });
    const created = await web.app.inject({
      method: 'POST',
      url: '/exports',
      payload: form.toString(),
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(created.statusCode).toBe(303);
    const jobId = decodeURIComponent(created.headers.location!.replace('/jobs/', ''));
    expect(jobId).toBe(exportJobIdOf(accountId, `spot-ledger_2026-01-01_2026-01-31_UTC`));
    await waitForState(jobId, 'completed');
    const status = await web.app.inject({ method: 'GET', url: created.headers.location!, headers: { cookie } });
    expect(status.body).toContain('completed');
    expect(status.body).not.toContain('http-equiv="refresh"');
    const csvLink = /href="(\/downloads\/[^"]+\.csv)"/.exec(status.body)![1]!;
    const csv = await web.app.inject({ method: 'GET', url: csvLink, headers: { cookie } });
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toMatch(
      /^attachment; filename="spot-ledger_2026-01-01_2026-01-31_UTC.csv"$/,
    );
    const onDisk = await readFile(
      path.join(web.exportDir, accountId, 'spot-ledger_2026-01-01_2026-01-31_UTC.csv'),
      'utf8',
    );
    expect(csv.body).toBe(onDisk);
    expect(csv.body.split('\n')[2]).toContain('r2,');
    const manifestLink = /href="(\/downloads\/[^"]+\.manifest\.json)"/.exec(status.body)![1]!;
    const manifest = await web.app.inject({ method: 'GET', url: manifestLink, headers: { cookie } });
    expect(JSON.parse(manifest.body)).toMatchObject({ report: 'spot-ledger', rowCount: 2 });
    const home = await web.app.inject({ method: 'GET', url: '/', headers: { cookie } });
    expect(home.body).toContain(csvLink);
  });

  it('offers the uk and de methods and a valuation currency; a uk request runs in GBP and its manifest says so', async () => {
    const home = await web.app.inject({ method: 'GET', url: '/', headers: { cookie } });
    // The filing rules are a group of their own in the gains method's list, each named in words.
    expect(flat(home)).toMatch(
      /<optgroup label="Filing rules"> ?<option value="uk" ?>UK \(HMRC share matching\)<\/option> ?<option value="de" ?>Germany \(§ 23 EStG\)<\/option> ?<\/optgroup>/,
    );
    expect(home.body).toContain('name="valuation"');
    // An account whose every wallet the gains walk reads is synced for the period (the shared one has only spot).
    const filer = await insertAccount(web.db.url, 'uk-filer');
    await insertCoverage(web.db.url, filer, '2025-12-01T00:00:00Z', '2026-03-01T00:00:00Z');
    const form = new URLSearchParams({
      accountId: filer,
      report: 'realized-gains',
      from: '2026-01-01',
      to: '2026-01-31',
      tz: 'UTC',
      method: 'uk',
      longTermDays: '365',
      valuation: '',
      _csrf: csrf,
    });
    const created = await web.app.inject({
      method: 'POST',
      url: '/exports',
      payload: form.toString(),
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(created.statusCode).toBe(303);
    const jobId = decodeURIComponent(created.headers.location!.replace('/jobs/', ''));
    expect(jobId).toBe(exportJobIdOf(filer, `realized-gains_2026-01-01_2026-01-31_UTC_uk_long-365d`));
    await waitForState(jobId, 'completed');
    const status = await web.app.inject({ method: 'GET', url: created.headers.location!, headers: { cookie } });
    const manifestLink = /href="(\/downloads\/[^"]+\.manifest\.json)"/.exec(status.body)![1]!;
    const manifest = await web.app.inject({ method: 'GET', url: manifestLink, headers: { cookie } });
    expect(JSON.parse(manifest.body)).toMatchObject({
      columns: expect.arrayContaining(['rule', 'pool_quantity', 'allowable_cost']),
      parameters: { method: 'uk', valuationCurrency: 'GBP', rulesVersion: expect.stringContaining('CRYPTO22250') },
    });
  });

  it('shows a running request with a refresh, and a bad request with the field at fault', async () => {
    await web.queue.pause();
    try {
      const form = new URLSearchParams({
        accountId,
        report: 'koinly',
        from: '2026-02-01',
        to: '2026-02-28',
        tz: 'UTC',
        // Koinly reads the futures positions too, never synced here: the period is partial.
        acceptPartial: '1',
        _csrf: csrf,
      });
      const created = await web.app.inject({
        method: 'POST',
        url: '/exports',
        payload: form.toString(),
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      });
      const waiting = await web.app.inject({ method: 'GET', url: created.headers.location!, headers: { cookie } });
      expect(waiting.body).toContain('http-equiv="refresh" content="2"');
      expect(waiting.body).toMatch(/id="state"[^>]*data-state="waiting"[^>]*>Waiting for the export worker</);
    } finally {
      await web.queue.resume();
    }
    const bad = await web.app.inject({
      method: 'POST',
      url: '/exports',
      payload: new URLSearchParams({
        accountId,
        report: 'koinly',
        from: '2026-02-01',
        to: '2026-01-01',
        tz: 'UTC',
        _csrf: csrf,
      }).toString(),
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('to: must not be before from (2026-02-01)');
    const zone = await web.app.inject({
      method: 'POST',
      url: '/exports',
      payload: new URLSearchParams({
        accountId,
        report: 'koinly',
        from: '2026-02-01',
        to: '2026-02-02',
        tz: 'Nowhere/City',
        _csrf: csrf,
      }).toString(),
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(zone.body).toContain('tz: must be an IANA time zone name');
  });

  it('never serves a file outside an export directory', async () => {
    for (const url of [
      `/downloads/${accountId}/..%2F..%2Fetc%2Fpasswd`,
      `/downloads/${accountId}/%2E%2E%2Fsecret.csv`,
      `/downloads/not-a-uuid/x.csv`,
      `/downloads/${accountId}/x.txt`,
      `/downloads/${accountId}/missing.csv`,
    ]) {
      const response = await web.app.inject({ method: 'GET', url, headers: { cookie } });
      expect(response.statusCode, url).toBe(404);
    }
  });

  it('streams a report straight into the response, the same bytes as the file export', async () => {
    const response = await web.app.inject({
      method: 'GET',
      url: `/stream/spot-ledger?accountId=${accountId}&from=2026-01-01&to=2026-01-31&tz=Europe/Berlin`,
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(response.statusCode).toBe(200);
    const request = parseExportRequest({
      report: 'spot-ledger',
      accountId,
      from: '2026-01-01',
      to: '2026-01-31',
      tz: 'Europe/Berlin',
    });
    const file = await exportToFile({
      databaseUrl: web.db.url,
      request,
      account: { id: accountId, name: 'acme <script>' },
      csvPath: path.join(web.exportDir, 'direct.csv'),
    });
    expect(response.body).toBe(await readFile(file.csvPath, 'utf8'));
    const bad = await web.app.inject({
      method: 'GET',
      url: `/stream/spot-ledger?accountId=${accountId}&from=2026-13-01&to=2026-01-31`,
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect([bad.statusCode, bad.body]).toEqual([400, 'from: is not a calendar date (got "2026-13-01")\n']);
  });

  it('draws the coverage timeline: covered, failed and never-read stretches, as of, last reconciliation', async () => {
    const home = flat(await web.app.inject({ method: 'GET', url: '/', headers: { cookie } }));
    expect(home).toContain('<svg class="timeline"');
    expect(home).toMatch(/fill="#17a34a"\s*><title>covered: 2025-12-01 to 2026-03-01<\/title>/);
    expect(home).toMatch(/fill="#d92d20"\s*><title>failed: 2026-03-01 to 2026-03-31<\/title>/);
    expect(home).toContain('as of 2026-03-01 00:00 UTC');
    expect(home).toMatch(/last read \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
    expect(home).toContain('last failure');
    expect(home).toMatch(/Last reconciliation 2026-03-02 02:10 UTC:\s*<strong class="state-failed">failed<\/strong>/);
    expect(home).toContain('spot balance continuity: FAILED (BTC jumps on 2026-01-06)');
  });

  it('warns before requesting a period the data does not cover, keeps the form, and marks the export partial', async () => {
    const values = {
      accountId,
      report: 'koinly',
      from: '2026-02-20',
      to: '2026-03-10',
      tz: 'Europe/Berlin',
      coin: 'BTC',
    };
    const warned = await web.app.inject({
      method: 'POST',
      url: '/exports',
      payload: new URLSearchParams({ ...values, _csrf: csrf }).toString(),
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(warned.statusCode).toBe(409);
    const warnedBody = flat(warned);
    expect(warnedBody).toContain('The data does not cover this whole period');
    expect(warnedBody).toContain('Spot records: not read from 2026-03-01 00:00 UTC to 2026-03-10 23:00 UTC');
    // The form comes back as it was sent.
    expect(warnedBody).toMatch(/<option value="koinly" selected>/);
    expect(warnedBody).toContain('name="from" value="2026-02-20"');
    expect(warnedBody).toContain('<option selected>Europe/Berlin</option>');
    expect(warnedBody).toContain('name="coin" value="BTC"');
    expect(
      await web.queue.getJob(exportJobIdOf(accountId, `koinly_2026-02-20_2026-03-10_Europe~Berlin_BTC`)),
    ).toBeUndefined();

    const confirmed = await web.app.inject({
      method: 'POST',
      url: '/exports',
      payload: new URLSearchParams({ ...values, acceptPartial: '1', _csrf: csrf }).toString(),
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(confirmed.statusCode).toBe(303);
    const jobId = decodeURIComponent(confirmed.headers.location!.replace('/jobs/', ''));
    await waitForState(jobId, 'completed');
    const pageBody = flat(
      await web.app.inject({ method: 'GET', url: confirmed.headers.location!, headers: { cookie } }),
    );
    expect(pageBody).toMatch(/id="coverage">\s*<span class="partial">partial<\/span>/);
    expect(pageBody).toContain('Export: Koinly universal CSV');
    const home = flat(await web.app.inject({ method: 'GET', url: '/', headers: { cookie } }));
    expect(home).toMatch(/Koinly universal CSV<\/td>[\s\S]*?<span class="partial">\(partial\)<\/span>/);
    // The finished file is listed as partial too, judged by the coverage when it was written.
    expect(home).toContain('<td>Koinly universal CSV <span class="partial">(partial)</span></td>');
    expect(home).toContain('<td>Spot ledger</td>');
  });

  it("shows unread positions behind the exchange's horizon as not recoverable, and says so instead of advising a backfill", async () => {
    const other = await insertAccount(web.db.url, 'horizon-gmbh');
    const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);
    // Positions were read for a month half a year ago, then never again: the exchange has since forgotten
    // what followed, up to its 90-day horizon. Spot is read throughout.
    await insertWindows(web.db.url, other, [
      { stream: 'spot', start: `${daysAgo(200)}T00:00:00Z`, end: `${daysAgo(1)}T00:00:00Z`, status: 'done' },
      {
        stream: 'positions',
        scope: 'USDT-FUTURES',
        start: `${daysAgo(200)}T00:00:00Z`,
        end: `${daysAgo(170)}T00:00:00Z`,
        status: 'done',
      },
      // The futures ledger (what futures-pnl reads) likewise, beyond its 366-day horizon.
      {
        stream: 'futures-ledger',
        scope: 'USDT-FUTURES',
        start: `${daysAgo(600)}T00:00:00Z`,
        end: `${daysAgo(570)}T00:00:00Z`,
        status: 'done',
      },
    ]);
    const home = flat(await web.app.inject({ method: 'GET', url: '/', headers: { cookie } }));
    const section = home.slice(home.indexOf('<h3>horizon-gmbh</h3>'));
    expect(section).toMatch(
      new RegExp(`fill="#6e40c9"\\s*><title>beyond the exchange&#39;s horizon: not recoverable: ${daysAgo(170)} to `),
    );
    expect(section).toContain('</span>beyond the exchange&#39;s horizon: not recoverable</span>');
    // Spot keeps everything: nothing of it is beyond a horizon.
    expect(section.split('aria-label="Spot records coverage"')[1]!.split('</svg>')[0]).not.toContain('#6e40c9');

    const ask = (from: string, to: string) =>
      web.app.inject({
        method: 'POST',
        url: '/exports',
        payload: new URLSearchParams({
          accountId: other,
          report: 'futures-pnl',
          from,
          to,
          tz: 'UTC',
          _csrf: csrf,
        }).toString(),
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      });
    // Wholly beyond the horizon: no advice to run a backfill, which could never read it.
    const lost = flat(await ask(daysAgo(500), daysAgo(450)));
    expect(lost).toContain('Futures ledger (USDT-FUTURES): not read from');
    expect(lost).toContain("beyond the exchange's horizon and cannot be read any more");
    expect(lost).not.toContain('Run a backfill');
    // Within the horizon: a backfill or the sync can still read it.
    const recoverable = flat(await ask(daysAgo(30), daysAgo(10)));
    expect(recoverable).toContain('Run a backfill or wait for the nightly sync');
    expect(recoverable).not.toContain('cannot be read any more');
  });

  it('charts the closing balance per coin per month, exactly as stored, carried through months without a record', async () => {
    const other = await insertAccount(web.db.url, 'balances-gmbh');
    await insertSpot(web.db.url, other, [
      {
        recordId: 'b1',
        coin: 'BTC',
        spotTaxType: 'Deposit',
        amount: '1.5',
        balance: '1.5',
        ts: '2025-11-10T10:00:00Z',
      },
      { recordId: 'b2', coin: 'BTC', spotTaxType: 'Deposit', amount: '1', balance: '2.5', ts: '2026-01-05T10:00:00Z' },
      {
        recordId: 'b3',
        coin: 'BTC',
        spotTaxType: 'Deposit',
        amount: '0.000000000000000001',
        balance: '2.500000000000000001',
        ts: '2026-01-31T23:59:59.999Z',
      },
      {
        recordId: 'b4',
        coin: 'USDT',
        spotTaxType: 'Deposit',
        amount: '100',
        balance: '100',
        ts: '2026-01-20T09:00:00Z',
      },
    ]);
    const home = flat(await web.app.inject({ method: 'GET', url: '/', headers: { cookie } }));
    const section = home.slice(home.indexOf('<h3>balances-gmbh</h3>'));
    expect(section).toContain('<title>2025-11: 1.5 BTC</title>');
    // December has no record: it closes at November's balance.
    expect(section).toContain('<title>2025-12: 1.5 BTC</title>');
    expect(section).toContain('<title>2026-01: 2.500000000000000001 BTC</title>');
    expect(section).toContain('2.500000000000000001 at the end of Jan 2026');
    // The axes are labelled: the coin up the side, its largest balance cut from the exact text, the months along.
    expect(section).toMatch(/<text class="axis-title"[^>]*> BTC <\/text>/);
    expect(section).toMatch(/>\s*≈2.5\s*</);
    expect(section).toMatch(/<text class="month"[^>]*> Jan <\/text>/);
    expect(section).toContain('<title>2026-01: 100 USDT</title>');
    expect(section).toContain('<title>2025-02: 0 BTC</title>');
  });

  it('fills the dates from a period preset in the chosen zone, lists every IANA zone, and describes each report', async () => {
    const form = new URLSearchParams({ accountId, report: 'spot-ledger', period: 'previous-year', tz: 'Asia/Tokyo' });
    const response = await web.app.inject({
      method: 'POST',
      url: '/exports',
      payload: `${form.toString()}&_csrf=${encodeURIComponent(csrf)}`,
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    });
    // Only December of last year is covered: warned, with the preset's dates in the form.
    const year = DateTime.now().setZone('Asia/Tokyo').year - 1;
    const body = flat(response);
    expect(response.statusCode).toBe(409);
    expect(body).toContain(`name="from" value="${year}-01-01"`);
    expect(body).toContain(`name="to" value="${year}-12-31"`);
    expect(body).toContain('<option selected>Asia/Tokyo</option>');
    expect(body.match(/<option( selected)?>[A-Za-z_]+\/[A-Za-z_/+-]+<\/option>/g)!.length).toBeGreaterThan(300);
    expect(body).toContain('<dt>Koinly universal CSV</dt>');
    // Koinly takes one file per wallet: the description names the wallet, not "the spot ledger".
    expect(body).toContain('the spot wallet in Koinly&#39;s universal import format');
    expect(body).not.toContain('the spot ledger in');
    expect(body).toContain('<dt><code>sha256</code></dt>');
    expect(body).toContain('placeholder="YYYY-MM-DD"');
    expect(body).not.toContain('type="date"');
  });

  it('serves an .xlsx beside each CSV: ids as text, amounts as numbers, their exact text beside when Excel cannot keep them', async () => {
    const other = await insertAccount(web.db.url, 'xlsx-gmbh');
    await insertSpot(web.db.url, other, [
      {
        recordId: '1234567890123456789',
        coin: 'BTC',
        spotTaxType: 'Deposit',
        amount: '2.500000000000000001',
        fee: '-0.0001',
        balance: '2.500000000000000001',
        ts: '2026-01-05T10:00:00Z',
      },
    ]);
    const form = { accountId: other, report: 'spot-ledger', from: '2026-01-01', to: '2026-01-31', tz: 'UTC' };
    const created = await web.app.inject({
      method: 'POST',
      url: '/exports',
      payload: new URLSearchParams({ ...form, acceptPartial: '1', _csrf: csrf }).toString(),
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    });
    await waitForState(decodeURIComponent(created.headers.location!.replace('/jobs/', '')), 'completed');
    const status = await web.app.inject({ method: 'GET', url: created.headers.location!, headers: { cookie } });
    const link = /href="(\/downloads\/[^"]+\.xlsx)"/.exec(status.body)![1]!;
    const response = await web.app.inject({ method: 'GET', url: link, headers: { cookie } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(response.headers['content-disposition']).toBe(
      // Nothing of this account was ever synced: the export was accepted as partial, and is named so.
      'attachment; filename="spot-ledger_2026-01-01_2026-01-31_UTC_PARTIAL.xlsx"',
    );
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(response.rawPayload as unknown as ArrayBuffer);
    const sheet = workbook.worksheets[0]!;
    const header = (sheet.getRow(1).values as unknown[]).slice(1);
    const row = (sheet.getRow(2).values as unknown[]).slice(1);
    const at = (name: string) => row[header.indexOf(name)];
    expect(at('record_id')).toBe('spot:1234567890123456789');
    expect(at('amount')).toBe(2.5);
    expect(at('amount_exact')).toBe('2.500000000000000001');
    expect(at('fee')).toBe(-0.0001);
    // Times are real dates (their wall clock as written), shown as dates.
    expect(at('time_utc')).toEqual(new Date('2026-01-05T10:00:00.000Z'));
    expect(sheet.getRow(2).getCell(header.indexOf('time_utc') + 1).numFmt).toBe('yyyy-mm-dd hh:mm:ss');
    expect(sheet.rowCount).toBe(2);
    // A spreadsheet to work in: the header frozen and filtered, each column as wide as its content.
    expect(sheet.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    expect(sheet.autoFilter).toBeTruthy();
    expect(JSON.stringify(sheet.autoFilter)).toMatch(/A1/);
    expect(sheet.getRow(1).font?.bold).toBe(true);
    expect(sheet.getColumn(header.indexOf('record_id') + 1).width).toBeGreaterThanOrEqual('1234567890123456789'.length);
    expect(sheet.getColumn(header.indexOf('coin') + 1).width).toBeLessThan(12);
    // Only files next to a CSV of the same name exist.
    const missing = await web.app.inject({
      method: 'GET',
      url: link.replace('2026-01-31', '2026-01-30'),
      headers: { cookie },
    });
    expect(missing.statusCode).toBe(404);
  });
});

describe('period presets', () => {
  const now = new Date('2026-03-15T10:00:00Z');
  it('are whole local days: previous month, previous quarter, this year so far, previous year', () => {
    expect(presetDates('previous-month', now, 'Europe/Berlin')).toEqual({ from: '2026-02-01', to: '2026-02-28' });
    expect(presetDates('previous-quarter', now, 'Europe/Berlin')).toEqual({ from: '2025-10-01', to: '2025-12-31' });
    expect(presetDates('year-to-date', now, 'Europe/Berlin')).toEqual({ from: '2026-01-01', to: '2026-03-14' });
    expect(presetDates('previous-year', now, 'Europe/Berlin')).toEqual({ from: '2025-01-01', to: '2025-12-31' });
    expect(presetDates('custom', now, 'UTC')).toBeUndefined();
    // 23:30 UTC on 31 December is already 1 January in Tokyo: last year is then over.
    const newYear = new Date('2025-12-31T23:30:00Z');
    expect(presetDates('previous-year', newYear, 'Asia/Tokyo')).toEqual({ from: '2025-01-01', to: '2025-12-31' });
    expect(presetDates('year-to-date', newYear, 'Asia/Tokyo')).toEqual({ from: '2025-01-01', to: '2025-12-31' });
    expect(() => presetDates('fortnight', now, 'UTC')).toThrow(/period: must be one of/);
  });
});

describe('the tax years page', () => {
  it('answers 404 for an account it does not know, escapes the account name, and says plainly when there is nothing yet', async () => {
    for (const id of ['not-a-uuid', '00000000-0000-4000-8000-000000000000']) {
      const answer = await web.app.inject({ method: 'GET', url: `/tax-years/${id}`, headers: { cookie } });
      expect(answer.statusCode).toBe(404);
    }
    const named = await web.app.inject({ method: 'GET', url: `/tax-years/${accountId}`, headers: { cookie } });
    expect(named.statusCode).toBe(200);
    expect(named.body).toContain('Tax years: acme &lt;script&gt;');
    expect(named.body).not.toContain('<script>');
    const empty = await insertAccount(web.db.url, 'empty-gmbh');
    const page = await web.app.inject({ method: 'GET', url: `/tax-years/${empty}`, headers: { cookie } });
    expect(page.statusCode).toBe(200);
    // Neither the UK nor the German section has a year to show.
    expect(page.body.match(/No records yet\./g)).toHaveLength(2);
    expect(page.body).toContain('Every coin moved in has a supplied cost.');
  });
});
