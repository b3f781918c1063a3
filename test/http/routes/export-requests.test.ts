import { beforeAll, describe, expect, it } from 'vitest';

import { GAINS_METHODS } from '../../../src/accounting/gains/gains-method.ts';
import { REPORTS } from '../../../src/export/reports/index.ts';
import { escapeHtml } from '../../../src/http/html.ts';
import { PERIOD_PRESETS } from '../../../src/http/period-presets.ts';
import { insertAccount, insertSpot } from '../../export/seed.ts';
import { type SignedIn, signIn, TOKEN, useWebApp } from '../web-fixture.ts';

/**
 * Every request the export form offers lands on a job page (issue 41 item 1): each report kind x
 * method x valuation x period preset, as a browser posts it. Ids in the job page's address were
 * 107-115 characters for the UK and German gains reports, past fastify's 100-character parameter,
 * and the page answered raw JSON (414). The queue is paused: what is under test is the request and
 * its page, not the exports (the browser test follows a request of each kind to its files).
 */
const web = useWebApp('export-requests');
let session: SignedIn;
let accountId: string;

const HTML = { accept: 'text/html,application/xhtml+xml' };

beforeAll(async () => {
  await web.queue.pause();
  accountId = await insertAccount(web.db.url, 'every-request');
  await insertSpot(web.db.url, accountId, [
    { recordId: '1', coin: 'BTC', spotTaxType: 'Deposit', amount: '1', ts: '2026-01-02T10:00:00Z' },
  ]);
  session = await signIn(web.app, TOKEN);
});

/** The valuations the form can send with a report and method: none, and each one its rules take. */
function valuations(accepts: boolean, method: string | undefined): string[] {
  if (!accepts) return [''];
  if (method === 'uk') return ['', 'GBP'];
  if (method === 'de') return ['', 'EUR'];
  return ['', 'GBP', 'EUR'];
}

const requests = REPORTS.flatMap((report) =>
  (report.accepts.lots ? GAINS_METHODS : [undefined]).flatMap((method) =>
    valuations(report.accepts.valuation === true, method).flatMap((valuation) =>
      PERIOD_PRESETS.map((preset) => ({ report, method, valuation, preset: preset.value })),
    ),
  ),
);

describe('every request the export form offers', () => {
  it(`lands on a job page in plain words: ${requests.length} kinds x methods x valuations x presets`, async () => {
    const failures: string[] = [];
    for (const { report, method, valuation, preset } of requests) {
      const label = `${report.name} ${method ?? ''} ${valuation} ${preset}`;
      const form = new URLSearchParams({
        _csrf: session.csrf,
        accountId,
        report: report.name,
        period: preset,
        from: '2026-01-01',
        to: '2026-01-31',
        tz: 'Europe/London',
        method: method ?? 'fifo',
        longTermDays: '',
        valuation,
        coin: '',
        acceptPartial: '1',
      });
      const posted = await web.app.inject({
        method: 'POST',
        url: '/exports',
        payload: form.toString(),
        headers: { ...HTML, 'content-type': 'application/x-www-form-urlencoded', cookie: session.cookie },
      });
      const location = posted.headers.location;
      if (posted.statusCode !== 303 || typeof location !== 'string') {
        failures.push(`${label}: POST answered ${posted.statusCode}`);
        continue;
      }
      expect(location).toMatch(/^\/jobs\/[\w-]{1,40}$/);
      const page = await web.app.inject({ method: 'GET', url: location, headers: { ...HTML, cookie: session.cookie } });
      if (page.statusCode !== 200 || !String(page.headers['content-type']).startsWith('text/html')) {
        failures.push(`${label}: ${location} answered ${page.statusCode} ${page.headers['content-type']}`);
        continue;
      }
      expect(page.body, label).toContain(`<h1>Export: ${escapeHtml(report.title)}</h1>`);
      expect(page.body, label).toMatch(/data-state="(waiting|prioritized)"[^>]*>Waiting for the export worker</);
      if (method !== undefined) expect(page.body, label).toContain('id="method"');
    }
    expect(failures).toEqual([]);
  }, 240_000);
});

describe('no page answers raw JSON or a bare line to a browser', () => {
  const page = (url: string) => web.app.inject({ method: 'GET', url, headers: { ...HTML, cookie: session.cookie } });

  it.each([
    ['an address with no route', '/no-such-page', 404, 'No such page'],
    ['an export request that does not exist', '/jobs/export-0000000000', 404, 'Not found'],
    ['a job id longer than any route parameter', `/jobs/${'x'.repeat(400)}`, 400, 'This address cannot be read'],
    ['a malformed address', '/jobs/%E0%A4%A', 400, 'This address cannot be read'],
    ['an account that does not exist', '/tax-years/00000000-0000-4000-8000-000000000000', 404, 'Not found'],
    ['a file that does not exist', '/downloads/00000000-0000-4000-8000-000000000000/x.csv', 404, 'Not found'],
  ])('%s is a page saying what happened and what to do', async (_what, url, status, title) => {
    const answer = await page(url);
    expect(answer.statusCode).toBe(status);
    expect(answer.headers['content-type']).toMatch(/^text\/html/);
    expect(answer.body).toContain(`<h1>${title}</h1>`);
    expect(answer.body).toContain('href="/"');
    expect(answer.body).not.toMatch(/"code"\s*:|FST_ERR/);
  });

  it('gives a script (no text/html in Accept) the one plain line, as before', async () => {
    const answer = await web.app.inject({ method: 'GET', url: '/jobs/nope', headers: { cookie: session.cookie } });
    expect(answer.statusCode).toBe(404);
    expect(answer.body).toBe('no such export request\n');
  });

  it('answers an expired form with a page that says to reload it', async () => {
    const answer = await web.app.inject({
      method: 'POST',
      url: '/exports',
      payload: 'report=spot-ledger&_csrf=stale',
      headers: { ...HTML, 'content-type': 'application/x-www-form-urlencoded', cookie: session.cookie },
    });
    expect(answer.statusCode).toBe(403);
    expect(answer.body).toContain('<h1>This form has expired</h1>');
  });
});
