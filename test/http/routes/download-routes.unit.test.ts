import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { answerFailuresPlainly } from '../../../src/http/resilience.ts';
import { downloadRoutes } from '../../../src/http/routes/download-routes.ts';

/**
 * The download route module on its own (the sign-in in front of it is web-app's, tested there):
 * it serves exactly the files of an account's export folder, and nothing outside it.
 */
const ACCOUNT = '0b5e6a52-3f4e-4c57-9c1a-2f1f0f6d2a11';
const CSV = 'spot-ledger_2026-01-01_2026-01-31_UTC.csv';
let exportDir: string;
let outside: string;
let app: FastifyInstance;

beforeAll(async () => {
  exportDir = await mkdtemp(path.join(tmpdir(), 'll-download-routes-'));
  outside = await mkdtemp(path.join(tmpdir(), 'll-download-outside-'));
  await mkdir(path.join(exportDir, ACCOUNT));
  await writeFile(path.join(exportDir, ACCOUNT, CSV), 'record_id,amount\nspot:1,0.10\n');
  await writeFile(path.join(outside, 'secret.csv'), 'not for download\n');
  await symlink(path.join(outside, 'secret.csv'), path.join(exportDir, ACCOUNT, 'linked.csv'));
  app = Fastify({ logger: false });
  answerFailuresPlainly(app);
  await app.register(downloadRoutes({ exportDir }));
});

afterAll(async () => {
  await app.close();
  await rm(exportDir, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

describe('the download routes', () => {
  it('serve a CSV of the account as an attachment, byte for byte', async () => {
    const answer = await app.inject({ method: 'GET', url: `/downloads/${ACCOUNT}/${CSV}` });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(answer.headers['content-disposition']).toBe(`attachment; filename="${CSV}"`);
    expect(answer.body).toBe('record_id,amount\nspot:1,0.10\n');
  });

  it('make an .xlsx of the CSV of the same name', async () => {
    const answer = await app.inject({ method: 'GET', url: `/downloads/${ACCOUNT}/${CSV.replace('.csv', '.xlsx')}` });
    expect(answer.statusCode).toBe(200);
    // A zip (an .xlsx is one): its first bytes.
    expect(answer.rawPayload.subarray(0, 2).toString('latin1')).toBe('PK');
  });

  it.each([
    ['a file that is not there', `/downloads/${ACCOUNT}/nothing.csv`],
    ['a link out of the export folder', `/downloads/${ACCOUNT}/linked.csv`],
    ['a path up and out', `/downloads/${ACCOUNT}/..%2F..%2Fetc%2Fpasswd`],
    ['an account id that is not one', '/downloads/not-an-id/x.csv'],
  ])('answer %s with a page saying it is not found', async (_what, url) => {
    const answer = await app.inject({ method: 'GET', url, headers: { accept: 'text/html' } });
    expect(answer.statusCode).toBe(404);
    expect(answer.body).toContain('<h1>Not found</h1>');
    expect(answer.body).not.toContain('not for download');
  });
});
