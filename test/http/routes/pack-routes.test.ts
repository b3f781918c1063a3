import JSZip from 'jszip';
import { beforeAll, describe, expect, it } from 'vitest';

import { insertAccount, insertCoverage, insertSpot } from '../../export/seed.ts';
import { signIn, TOKEN, useWebApp } from '../web-fixture.ts';

/**
 * The tax-year pack's route (issue 41 item 6): the tax years page offers a pack per year and
 * method, the request is a job on the export queue that the job page follows to its download, a
 * zip holding the PDF, the CSV files and their manifests. Bad choices answer a page, not JSON.
 */
const web = useWebApp('packroutes');
let accountId: string;
let cookie: string;
let csrf: string;

async function waitForState(jobId: string, state: string) {
  for (let i = 0; i < 1200; i++) {
    const job = await web.queue.getJob(jobId);
    if ((await job?.getState()) === state) return (await web.queue.getJob(jobId))!;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`job ${jobId} never reached ${state}`);
}

const post = (url: string, fields: Record<string, string>) =>
  web.app.inject({
    method: 'POST',
    url,
    payload: new URLSearchParams(fields).toString(),
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
  });

beforeAll(async () => {
  accountId = await insertAccount(web.db.url, 'pack <b>');
  const at = (day: string) => `${day}T10:00:00.000Z`;
  await insertSpot(web.db.url, accountId, [
    { recordId: 'b1', coin: 'GBP', spotTaxType: 'Sell', amount: '-100', bizOrderId: 'o1', ts: at('2024-05-01') },
    { recordId: 'b2', coin: 'SOL', spotTaxType: 'Sell', amount: '1', bizOrderId: 'o1', ts: at('2024-05-01') },
    { recordId: 's1', coin: 'SOL', spotTaxType: 'Sell', amount: '-1', bizOrderId: 'o2', ts: at('2024-06-01') },
    { recordId: 's2', coin: 'GBP', spotTaxType: 'Sell', amount: '130.5', bizOrderId: 'o2', ts: at('2024-06-01') },
  ]);
  await insertCoverage(web.db.url, accountId, '2024-01-01', '2025-06-01');
  ({ cookie, csrf } = await signIn(web.app, TOKEN));
});

describe('POST /tax-years/:accountId/pack', () => {
  it('the tax years page offers a pack per year and method; the request is a job whose page leads to the zip', async () => {
    const page = await web.app.inject({ method: 'GET', url: `/tax-years/${accountId}`, headers: { cookie } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`action="/tax-years/${accountId}/pack"`);
    expect(page.body).toContain('value="uk:2024-25"');
    expect(page.body).toContain('value="de:2024"');

    const created = await post(`/tax-years/${accountId}/pack`, { pack: 'uk:2024-25', _csrf: csrf });
    expect(created.statusCode).toBe(303);
    const jobId = decodeURIComponent(created.headers.location!.replace('/jobs/', ''));
    expect(jobId).toBe(`pack.${accountId}.uk.2024-25`);
    await waitForState(jobId, 'completed');
    const status = await web.app.inject({ method: 'GET', url: created.headers.location!, headers: { cookie } });
    expect(status.body).toContain('Tax-year pack: UK 2024-25 (SA108)');
    const zipLink = /href="(\/downloads\/[^"]+\.zip)"/.exec(status.body)![1]!;
    expect(zipLink).toBe(`/downloads/${accountId}/tax-year-pack_uk_2024-25.zip`);
    const zip = await web.app.inject({ method: 'GET', url: zipLink, headers: { cookie } });
    expect(zip.statusCode).toBe(200);
    expect(zip.headers['content-type']).toBe('application/zip');
    const files = Object.keys((await JSZip.loadAsync(zip.rawPayload)).files).sort();
    expect(files).toHaveLength(6);
    expect(files).toContain('tax-year-pack_uk_2024-25.pdf');
    expect(files).toContain('pack.json');
    expect(files.filter((f) => f.startsWith('realized-gains-summary_2024-04-06_2025-04-05'))).toHaveLength(2);
    expect(files.filter((f) => f.startsWith('realized-gains_2024-04-06_2025-04-05'))).toHaveLength(2);
    const details = /href="(\/downloads\/[^"]+\.pack\.json)"/.exec(status.body)![1]!;
    const manifest = await web.app.inject({ method: 'GET', url: details, headers: { cookie } });
    expect(JSON.parse(manifest.body)).toMatchObject({ kind: 'tax-year-pack', method: 'uk', taxYear: '2024-25' });
    // The finished job is listed among the requested exports under its own name.
    const home = await web.app.inject({ method: 'GET', url: '/', headers: { cookie } });
    expect(home.body).toContain('Tax-year pack: UK 2024-25 (SA108)');
  });

  it('a year the method does not name, an unknown account, or no form token: a page or a refusal, no job', async () => {
    const bad = await post(`/tax-years/${accountId}/pack`, { pack: 'de:2024-25', _csrf: csrf });
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['content-type']).toMatch(/^text\/html/);
    expect(bad.body).toContain('taxYear: must be a calendar year such as 2024');
    const method = await post(`/tax-years/${accountId}/pack`, { method: 'fifo', taxYear: '2024', _csrf: csrf });
    expect(method.statusCode).toBe(400);
    expect(method.body).toContain('method: must be uk or de');
    const unknown = await post('/tax-years/00000000-0000-4000-8000-000000000000/pack', {
      pack: 'uk:2024-25',
      _csrf: csrf,
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers['content-type']).toMatch(/^text\/html/);
    const forged = await post(`/tax-years/${accountId}/pack`, { pack: 'de:2024' });
    expect(forged.statusCode).toBeGreaterThanOrEqual(400);
    expect(await web.queue.getJob(`pack.${accountId}.de.2024`)).toBeUndefined();
  });
});
