import { PassThrough } from 'node:stream';

import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';

import { parseExportRequest, reportParams } from '../../../src/export/export-request.ts';
import { filingInputVersion } from '../../../src/export/filing/filing-input-version.ts';
import { reportFor } from '../../../src/export/reports/index.ts';
import { streamReport } from '../../../src/export/stream-report.ts';
import { insertAccount, insertSpot, parseCsv, withClient } from '../../export/seed.ts';
import { ADMIN_TOKEN, type SignedIn, signIn, TOKEN, useWebApp } from '../web-fixture.ts';

/**
 * "Coins away and not back" on the supply page (issue 42 item 4; src/http/coins-away-section.ts):
 * a move to a strategy not back after COINS_AWAY_DAYS is listed with its decision, decided on the
 * page with the command line's validation and recorded as `web:<role>`; a `lost` decision is the
 * de walk's disposal for nothing, and withdrawn on the page it counts no more.
 */
const web = useWebApp('supplyaway', { filingWaitMs: 0 });
let account: string;
let accountant: SignedIn;
let admin: SignedIn;

beforeAll(async () => {
  account = await insertAccount(web.db.url, 'away');
  await insertSpot(web.db.url, account, [
    { recordId: 'd1', coin: 'USDT', spotTaxType: 'Deposit', amount: '1000', ts: '2025-01-05T10:00:00.000Z' },
    // 300 USDT to a copy-trading strategy on 10 Feb 2025, never back.
    {
      recordId: 'm1',
      coin: 'USDT',
      spotTaxType: 'Withdraw to strategy account',
      amount: '-300',
      ts: '2025-02-10T10:00:00.000Z',
    },
  ]);
  accountant = await signIn(web.app, TOKEN);
  admin = await signIn(web.app, ADMIN_TOKEN);
});

const page = () =>
  web.app.inject({ method: 'GET', url: `/supplied/${account}`, headers: { cookie: accountant.cookie } });

const form = (who: SignedIn, action: string, fields: Record<string, string>) =>
  web.app.inject({
    method: 'POST',
    url: `/supplied/${account}/${action}`,
    payload: new URLSearchParams({ _csrf: who.csrf, ...fields }).toString(),
    headers: { cookie: who.cookie, 'content-type': 'application/x-www-form-urlencoded' },
  });

const decide = (fields: Record<string, string>) =>
  form(accountant, 'away', { move: 'm1', decision: 'lost', source: 'strategy-statement', ...fields });

const decisionImports = () =>
  withClient(web.db.url, async (c) =>
    Number((await c.query<{ n: string }>('SELECT count(*) AS n FROM away_decision_import')).rows[0]!.n),
  );

/** The de gains rows of 2025 of USDT: quantity, proceeds, cost, gain. */
async function deUsdt(): Promise<string[]> {
  const request = parseExportRequest({
    report: 'realized-gains',
    accountId: account,
    from: '2025-01-01',
    to: '2025-12-31',
    tz: 'UTC',
    method: 'de',
  });
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on('data', (c: Buffer) => chunks.push(c));
  await streamReport({
    databaseUrl: web.db.url,
    report: reportFor('realized-gains', 'de'),
    params: reportParams(request, 'main'),
    sink,
  });
  const [header, ...rows] = parseCsv(Buffer.concat(chunks).toString('utf8'));
  const at = (name: string) => header!.indexOf(name);
  return rows
    .filter((r) => r[at('coin')] === 'USDT')
    .map((r) => [r[at('quantity')], r[at('proceeds')], r[at('cost_basis')], r[at('gain')]].join(' '));
}

describe('coins away and not back, on the supply page', () => {
  it('lists the move undecided with a form deciding it', async () => {
    const answer = await page();
    expect(answer.statusCode).toBe(200);
    expect(answer.body).toContain('Coins away and not back');
    expect(answer.body).toMatch(/<tr\s+data-move="m1"\s+class="undecided"\s*>/);
    expect(answer.body).toContain('Withdraw to strategy account');
    expect(answer.body).toMatch(/<td class="decision">Undecided<\/td>/);
    expect(answer.body).toContain(`action="/supplied/${account}/away" data-move="m1"`);
    expect(answer.body).toMatch(/<form[^>]*data-move="m1"/);
  });

  it('refuses what the command line refuses, in the form’s words, and writes nothing', async () => {
    const early = await decide({ decided_on: '2025-01-01' });
    expect(early.statusCode).toBe(400);
    expect(early.body).toContain('decided at: must not be before the move (2025-02-10T10:00:00.000Z)');
    const more = await decide({ decided_on: '2025-06-30', quantity: '301' });
    expect(more.statusCode).toBe(400);
    expect(more.body).toContain('quantity: must be at most the 300 USDT moved');
    const unknown = await decide({ move: 'd1', decided_on: '2025-06-30' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.body).toContain('move: must be a move away of this account not back after 90 days');
    expect(await decisionImports()).toBe(0);
  });

  it('a lost decision is recorded by web:accountant, shown with who and when, and the de walk disposes of the coins for nothing', async () => {
    // The deposit's cost, supplied on the page: 900 EUR for the 1000 USDT.
    const cost = await form(accountant, 'cost', {
      deposit: 'spot:d1',
      acquired_on: '2025-01-01',
      cost_eur: '900',
      source: 'bank-statement',
    });
    expect(cost.statusCode).toBe(303);
    expect(await deUsdt()).toEqual([]);
    const answer = await decide({ decided_on: '2025-06-30', note: 'platform closed' });
    expect(answer.statusCode).toBe(303);
    expect(answer.headers.location).toMatch(new RegExp(`^/supplied/${account}\\?added=away-decision-\\d+#supplied$`));
    const listed = await page();
    expect(listed.body).toMatch(/<tr\s+data-move="m1"\s+class="lost"\s*>/);
    expect(listed.body).toMatch(/<td class="decision">Lost on 2025-06-30<\/td>\s*<td>web:accountant<\/td>/);
    expect(listed.body).not.toMatch(/<form[^>]*data-move="m1"/);
    expect(listed.body).toContain('1 decision on coins away from 1 row, source strategy-statement');
    // 300 of the 1000 USDT costing 900 EUR: a cost of 270, lost for nothing.
    expect(await deUsdt()).toEqual(['300 0 270 -270']);
    // The tax years' figures of the new inputs are asked of the worker at once.
    const pool = new pg.Pool({ connectionString: web.db.url, max: 1 });
    const version = await filingInputVersion(pool, account, 'de', undefined, Date.now()).finally(() => pool.end());
    const asked = await web.filingQueue.getJobs(['waiting', 'prioritized', 'delayed', 'active', 'completed'], 0, 100);
    expect(
      asked.filter((j) => j.data.accountId === account).map((j) => `${j.data.method} ${j.data.inputVersion}`),
    ).toContain(`de ${version}`);
  });

  it('withdrawn on the page with a reason, the decision counts no more and the move is undecided again', async () => {
    const id = await withClient(
      web.db.url,
      async (c) => (await c.query<{ id: string }>('SELECT id::text FROM away_decision_import')).rows[0]!.id,
    );
    const done = await form(admin, 'withdraw', { kind: 'away-decision', import: id, reason: 'strategy paid out' });
    expect(done.statusCode).toBe(303);
    const listed = await page();
    expect(listed.body).toMatch(/<tr\s+data-move="m1"\s+class="undecided"\s*>/);
    expect(listed.body).toMatch(/Withdrawn \S+Z by web:admin: strategy paid out/);
    expect(await deUsdt()).toEqual([]);
  });
});
