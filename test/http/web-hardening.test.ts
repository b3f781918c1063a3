import { mkdir, symlink } from 'node:fs/promises';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

import { SESSION_MAX_AGE_S, sessionValue } from '../../src/http/web-auth.ts';
import { insertAccount } from '../export/seed.ts';
import { TOKEN, useWebApp } from './web-fixture.ts';

const web = useWebApp('webharden');
const bearer = { authorization: `Bearer ${TOKEN}` };
const form = { 'content-type': 'application/x-www-form-urlencoded' };

describe('the web page under attack or failure', () => {
  it('refuses a state-changing request from another origin, even with a valid session', async () => {
    const forged = await web.app.inject({
      method: 'POST',
      url: '/exports',
      payload: 'report=spot-ledger',
      headers: { ...form, ...bearer, 'sec-fetch-site': 'same-site' },
    });
    expect(forged.statusCode).toBe(403);
    const noFetchMetadata = await web.app.inject({
      method: 'POST',
      url: '/logout',
      headers: { ...bearer, origin: 'http://127.0.0.1:9999', host: '127.0.0.1:8080' },
    });
    expect(noFetchMetadata.statusCode).toBe(403);
    expect(await web.queue.getJobCounts()).toMatchObject({ waiting: 0, active: 0 });
  });

  it('answers a repeated form field with a 400 naming it, not a crash', async () => {
    const accountId = await insertAccount(web.db.url, 'harden');
    const response = await web.app.inject({
      method: 'POST',
      url: '/exports',
      payload: `accountId=${accountId}&report=spot-ledger&from=2026-01-01&to=2026-01-31&coin=BTC&coin=ETH`,
      headers: { ...form, ...bearer, accept: 'text/html' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain('coin: must be given once, as text');
    const stream = await web.app.inject({
      method: 'GET',
      url: `/stream/spot-ledger?accountId=${accountId}&from=2026-01-01&to=2026-01-31&tz=UTC&tz=UTC`,
      headers: bearer,
    });
    expect(stream.statusCode).toBe(400);
    expect(stream.body).toContain('tz: must be given once, as text');
  });

  it('does not follow a symlink out of the export directory', async () => {
    const accountId = '00000000-0000-4000-8000-000000000001';
    await mkdir(path.join(web.exportDir, accountId), { recursive: true });
    const name = 'spot-ledger_2026-01-01_2026-01-31_UTC.csv';
    await symlink('/etc/hostname', path.join(web.exportDir, accountId, name));
    const response = await web.app.inject({ method: 'GET', url: `/downloads/${accountId}/${name}`, headers: bearer });
    expect(response.statusCode).toBe(404);
  });

  it('locks an address out after 10 failed sign-ins, the right token included, and logs each failure', async () => {
    const attempt = (token: string) =>
      web.app.inject({
        method: 'POST',
        url: '/login',
        payload: `token=${encodeURIComponent(token)}`,
        headers: form,
        remoteAddress: '10.9.9.9',
      });
    for (let k = 0; k < 10; k++) expect((await attempt(`wrong-${k}`)).statusCode).toBe(401);
    expect((await attempt(TOKEN)).statusCode).toBe(429);
    // Another address is not affected.
    const other = await web.app.inject({
      method: 'POST',
      url: '/login',
      payload: `token=${encodeURIComponent(TOKEN)}`,
      headers: form,
      remoteAddress: '10.9.9.10',
    });
    expect(other.statusCode).toBe(303);
  });

  it('ends a session after its maximum age', async () => {
    const stale = sessionValue(TOKEN, Date.now() - (SESSION_MAX_AGE_S + 60) * 1000);
    const fresh = sessionValue(TOKEN);
    const get = (value: string) =>
      web.app.inject({ method: 'GET', url: '/admin/queues/api/queues', headers: { cookie: `ll_session=${value}` } });
    expect((await get(stale)).statusCode).toBe(401);
    expect((await get(fresh)).statusCode).toBe(200);
  });

  it('refuses to be framed, bull-board included', async () => {
    const board = await web.app.inject({ method: 'GET', url: '/admin/queues', headers: bearer });
    expect(board.statusCode).toBe(200);
    expect(board.headers['x-frame-options']).toBe('DENY');
    expect(String(board.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
  });
});
