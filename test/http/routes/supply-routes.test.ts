import { PassThrough, Readable } from 'node:stream';

import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';

import { importPrices } from '../../../src/accounting/prices/import-prices.ts';
import { parseExportRequest, reportParams } from '../../../src/export/export-request.ts';
import { filingInputVersion } from '../../../src/export/filing/filing-input-version.ts';
import { reportFor } from '../../../src/export/reports/index.ts';
import { streamReport } from '../../../src/export/stream-report.ts';
import { lackingProceeds, unknownCosts } from '../../../src/http/unknown-costs.ts';
import { insertAccount, insertSpot, parseCsv, withClient } from '../../export/seed.ts';
import { ADMIN_TOKEN, type SignedIn, signIn, TOKEN, useWebApp } from '../web-fixture.ts';

/**
 * The supply page's routes (src/http/routes/supply-routes.ts; docs/web-page.md, "Supplying costs
 * and proceeds"): a cost entered per coin moved in, proceeds uploaded as a CSV file, each listed
 * with who supplied it, when and from what, withdrawn with a reason; the gains walk's figures
 * follow each step, and a bad entry or file writes nothing.
 */
const web = useWebApp('supplyroutes');
let account: string;
let accountant: SignedIn;
let admin: SignedIn;

/** The de gains row of the ETH moved in and sold: its cost, and the review flags of the file. */
async function deRow(): Promise<{ cost: string; flags: string[] }> {
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
  const result = await streamReport({
    databaseUrl: web.db.url,
    report: reportFor('realized-gains', 'de'),
    params: reportParams(request, 'main'),
    sink,
  });
  const [header, ...rows] = parseCsv(Buffer.concat(chunks).toString('utf8'));
  const eth = rows.find((r) => r[header!.indexOf('coin')] === 'ETH')!;
  return { cost: eth[header!.indexOf('cost_basis')]!, flags: Object.keys(result.review.values) };
}

const page = (who: SignedIn, query = '') =>
  web.app.inject({ method: 'GET', url: `/supplied/${account}${query}`, headers: { cookie: who.cookie } });

const form = (who: SignedIn, action: string, fields: Record<string, string>) =>
  web.app.inject({
    method: 'POST',
    url: `/supplied/${account}/${action}`,
    payload: new URLSearchParams({ _csrf: who.csrf, ...fields }).toString(),
    headers: { cookie: who.cookie, 'content-type': 'application/x-www-form-urlencoded' },
  });

function upload(who: SignedIn, kind: string, fileName: string, bytes: Buffer, csrf = who.csrf) {
  const boundary = '----ledgerline-test-boundary';
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${csrf}\r\n`),
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: text/csv\r\n\r\n`,
    ),
    bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return web.app.inject({
    method: 'POST',
    url: `/supplied/${account}/${kind}-file`,
    payload: body,
    headers: { cookie: who.cookie, 'content-type': `multipart/form-data; boundary=${boundary}` },
  });
}

const withPool = async <T>(body: (pool: pg.Pool) => Promise<T>) => {
  const pool = new pg.Pool({ connectionString: web.db.url, max: 1 });
  try {
    return await body(pool);
  } finally {
    await pool.end();
  }
};

const imports = () =>
  withClient(web.db.url, async (c) => {
    const cost = await c.query<{ n: string }>('SELECT count(*) AS n FROM cost_basis_import');
    const proceeds = await c.query<{ n: string }>('SELECT count(*) AS n FROM proceeds_import');
    return Number(cost.rows[0]!.n) + Number(proceeds.rows[0]!.n);
  });

beforeAll(async () => {
  account = await insertAccount(web.db.url, 'moved-in');
  await insertSpot(web.db.url, account, [
    // 1 ETH moved in on 1 March 2025 and sold on 1 June 2025 for 3,000 USDT.
    { recordId: 'dep', coin: 'ETH', spotTaxType: 'Deposit', amount: '1', ts: '2025-03-01T10:00:00.000Z' },
    {
      recordId: 's1',
      coin: 'ETH',
      spotTaxType: 'Sell',
      amount: '-1',
      bizOrderId: 'o1',
      ts: '2025-06-01T10:00:00.000Z',
    },
    {
      recordId: 's2',
      coin: 'USDT',
      spotTaxType: 'Sell',
      amount: '3000',
      bizOrderId: 'o1',
      ts: '2025-06-01T10:00:00.000Z',
    },
  ]);
  await withClient(web.db.url, (c) =>
    c.query(
      `INSERT INTO p2p_ledger_record (account_id, record_id, coin, p2p_tax_type, total, ts, raw)
       VALUES ($1, 'p4', 'USDT', 'sell', 100, '2025-03-08T10:00:00Z', '{}')`,
      [account],
    ),
  );
  const lines = ['date,base,quote,price,source'];
  for (let d = 1; d <= 28; d++) lines.push(`2025-06-${String(d).padStart(2, '0')},USDT,EUR,0.9,test`);
  await withClient(web.db.url, (c) => importPrices(c, Readable.from([`${lines.join('\n')}\n`])));
  accountant = await signIn(web.app, TOKEN);
  admin = await signIn(web.app, ADMIN_TOKEN);
});

describe('the supply page', () => {
  it('lists the coin moved in and the P2P sale, each with its form, and no supplied figures yet', async () => {
    const answer = await page(accountant);
    expect(answer.statusCode).toBe(200);
    expect(answer.body).toContain('data-deposit="spot:dep"');
    expect(answer.body).toContain('name="cost_gbp"');
    expect(answer.body).toContain('name="cost_eur"');
    expect(answer.body).toContain('data-sale="p2p:p4"');
    expect(answer.body).toContain('enctype="multipart/form-data"');
    expect(answer.body).toContain('No figures supplied yet.');
    expect((await web.app.inject({ method: 'GET', url: `/supplied/${account}` })).statusCode).toBe(401);
  });

  it('a bad form entry answers the page with the problem in the form’s words and writes nothing', async () => {
    const answer = await form(accountant, 'cost', {
      deposit: 'spot:dep',
      acquired_on: '2024-01-10',
      cost_eur: '15OO',
      source: 'kraken-statement',
    });
    expect(answer.statusCode).toBe(400);
    expect(answer.body).toContain('Nothing was written');
    expect(answer.body).toContain('EUR cost: must be a plain decimal, 0 or more (got &quot;15OO&quot;)');
    expect(await imports()).toBe(0);
  });

  it('a cost entered for the coin moved in is supplied by web:accountant from the page form, and the de figures use it', async () => {
    expect(await deRow()).toMatchObject({ cost: '' });
    const answer = await form(accountant, 'cost', {
      deposit: 'spot:dep',
      acquired_on: '2024-01-10',
      cost_eur: '1500',
      source: 'kraken-statement',
      note: 'bought on Kraken',
    });
    expect(answer.statusCode).toBe(303);
    expect(answer.headers.location).toMatch(new RegExp(`^/supplied/${account}\\?added=cost-basis-\\d+#supplied$`));
    const listed = await page(accountant, answer.headers.location!.replace(/^[^?]*/, '').replace(/#.*/, ''));
    expect(listed.body).toMatch(/Supplied: cost-basis import \d+/);
    expect(listed.body).toContain('<td>web:accountant</td>');
    expect(listed.body).toContain('1 lot from 1 row, in EUR, source kraken-statement');
    expect(listed.body).toContain('page form');
    // Euros price the de walk only: the uk figures (pounds) still lack the cost.
    expect(await withPool((pool) => unknownCosts(pool, account))).toMatchObject([
      { coin: 'ETH', lacking: { uk: '1', de: '0' } },
    ]);
    const de = await deRow();
    expect(de.cost).toBe('1500');
    expect(de.flags).not.toContain('unknown-cost');
    // The tax years' figures of the new inputs are asked of the worker at once, before any view of them.
    const version = (method: 'uk' | 'de') =>
      withPool((pool) => filingInputVersion(pool, account, method, undefined, Date.now()));
    const asked = await web.filingQueue.getJobs(
      ['waiting', 'prioritized', 'delayed', 'active', 'completed', 'failed'],
      0,
      100,
    );
    expect(
      asked.filter((j) => j.data.accountId === account).map((j) => `${j.data.method} ${j.data.inputVersion}`),
    ).toEqual(expect.arrayContaining([`uk ${await version('uk')}`, `de ${await version('de')}`]));
  });

  it('an uploaded file with bad rows lists each one, and writes nothing', async () => {
    const before = await imports();
    const bad = Buffer.from(
      'record_id,proceeds,currency,source\np2p:p4,85,USD,bank\np2p:nope,1,GBP,bank\np2p:p4,x,EUR,bank\n',
    );
    const answer = await upload(accountant, 'proceeds', 'sales.csv', bad);
    expect(answer.statusCode).toBe(400);
    expect(answer.body).toContain('line 2 currency: must be GBP or EUR');
    expect(answer.body).toContain('line 4 proceeds: must be a plain decimal, 0 or more (got &quot;x&quot;)');
    const nul = await upload(accountant, 'proceeds', 'bin.csv', Buffer.from('record_id,proceeds\u0000\n'));
    expect(nul.statusCode).toBe(400);
    expect(nul.body).toContain('line 1: must not contain a NUL byte');
    expect(await imports()).toBe(before);
  });

  it('refuses a file past 16 MiB with a page naming the limit (413), and an upload without the form token', async () => {
    const before = await imports();
    const big = await upload(accountant, 'cost-basis', 'big.csv', Buffer.alloc(16 * 1024 * 1024 + 1, 0x41));
    expect(big.statusCode).toBe(413);
    expect(big.body).toContain('file: must be at most 16,777,216 bytes (16 MiB)');
    const forged = await upload(
      accountant,
      'proceeds',
      'ok.csv',
      Buffer.from('record_id,proceeds,currency,source\n'),
      'x',
    );
    expect(forged.statusCode).toBe(403);
    expect(await imports()).toBe(before);
  });

  it('an uploaded proceeds file is supplied with its name and SHA-256; the same file again adds nothing', async () => {
    const good = Buffer.from('record_id,proceeds,currency,source,note\np2p:p4,85,GBP,bank-statement,\n');
    const first = await upload(accountant, 'proceeds', 'sales.csv', good);
    expect(first.statusCode).toBe(303);
    const again = await upload(accountant, 'proceeds', 'sales.csv', good);
    expect(again.headers.location).toMatch(/\?same=proceeds-\d+#supplied$/);
    const listed = await page(accountant);
    expect(listed.body).toContain('sales.csv');
    expect(listed.body).toContain('1 proceeds figure from 1 row, in GBP, source bank-statement');
    expect(await withPool((pool) => lackingProceeds(pool, account))).toMatchObject([
      { recordId: 'p2p:p4', suppliedIn: 'GBP' },
    ]);
  });

  it('withdrawing needs a reason; withdrawn, the import stays listed with who, when and why, and the figures drop it', async () => {
    const id = await withClient(
      web.db.url,
      async (c) => (await c.query<{ id: string }>('SELECT id::text FROM cost_basis_import')).rows[0]!.id,
    );
    const loggedBefore = await withClient(web.db.url, async (c) =>
      Number((await c.query<{ n: string }>(`SELECT count(*) AS n FROM gains_input_change`)).rows[0]!.n),
    );
    const noReason = await form(admin, 'withdraw', { kind: 'cost-basis', import: id, reason: ' ' });
    expect(noReason.statusCode).toBe(400);
    expect(noReason.body).toContain('reason: must say why');
    const done = await form(admin, 'withdraw', { kind: 'cost-basis', import: id, reason: 'wrong statement' });
    expect(done.statusCode).toBe(303);
    // The change is logged where checkpoints and caches look (gains_input_change), dated by the lot
    // (read before a walk, which may merge the log's rows: gains-change-prune.ts).
    const logged = await withClient(
      web.db.url,
      async (c) =>
        (
          await c.query<{ source: string; day: string }>(
            `SELECT source, to_char(changed_from AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day
               FROM gains_input_change ORDER BY id OFFSET $1`,
            [loggedBefore],
          )
        ).rows,
    );
    expect(logged).toEqual([{ source: 'cost_basis_import', day: '2024-01-10' }]);
    const listed = await page(accountant);
    expect(listed.body).toMatch(/Withdrawn \S+Z by web:admin: wrong statement/);
    expect(await withPool((pool) => unknownCosts(pool, account))).toMatchObject([
      { coin: 'ETH', lacking: { uk: '1', de: '1' } },
    ]);
    const de = await deRow();
    expect(de.cost).toBe('');
    expect(de.flags).toContain('unknown-cost');
    const twice = await form(admin, 'withdraw', { kind: 'cost-basis', import: id, reason: 'again' });
    expect(twice.statusCode).toBe(400);
    expect(twice.body).toContain('was already withdrawn');
  });

  it('a withdrawn figure may be supplied again, from the page, and counts again', async () => {
    const answer = await form(accountant, 'cost', {
      deposit: 'spot:dep',
      acquired_on: '2024-01-10',
      cost_eur: '1500',
      source: 'kraken-statement',
      note: 'bought on Kraken',
    });
    expect(answer.statusCode).toBe(303);
    expect(answer.headers.location).toMatch(/\?added=/);
    expect((await deRow()).cost).toBe('1500');
  });
});
