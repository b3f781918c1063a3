import { mkdir, symlink } from 'node:fs/promises';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

import { insertAccount } from '../export/seed.ts';
import { signIn, TOKEN, useWebApp } from './web-fixture.ts';

const web = useWebApp('webharden');
const bearer = { authorization: `Bearer ${TOKEN}` };
const form = { 'content-type': 'application/x-www-form-urlencoded' };

describe('the web page under attack or failure', () => {
  it('refuses a state-changing request the browser marks as cross-site, even with a valid session and token', async () => {
    const session = await signIn(web.app, TOKEN);
    const forged = await web.app.inject({
      method: 'POST',
      url: '/exports',
      payload: `report=spot-ledger&_csrf=${encodeURIComponent(session.csrf)}`,
      headers: { ...form, cookie: session.cookie, 'sec-fetch-site': 'same-site' },
    });
    expect(forged.statusCode).toBe(403);
    const withoutToken = await web.app.inject({
      method: 'POST',
      url: '/exports',
      payload: 'report=spot-ledger',
      headers: { ...form, cookie: session.cookie, origin: 'http://127.0.0.1:9999', host: '127.0.0.1:8080' },
    });
    expect(withoutToken.statusCode).toBe(403);
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
    const page = await web.app.inject({ method: 'GET', url: '/login' });
    const csrfCookie = String(page.headers['set-cookie']).split(';')[0]!;
    const csrf = encodeURIComponent(/name="_csrf" value="([^"]+)"/.exec(page.body)![1]!);
    const attempt = (token: string, remoteAddress = '10.9.9.9') =>
      web.app.inject({
        method: 'POST',
        url: '/login',
        payload: `token=${encodeURIComponent(token)}&_csrf=${csrf}`,
        headers: { ...form, cookie: csrfCookie },
        remoteAddress,
      });
    for (let k = 0; k < 10; k++) expect((await attempt(`wrong-${k}`)).statusCode).toBe(401);
    expect((await attempt(TOKEN)).statusCode).toBe(429);
    // Another address is not affected.
    const other = await attempt(TOKEN, '10.9.9.10');
    expect(other.statusCode).toBe(303);
  });

  it('refuses to be framed, bull-board included', async () => {
    const board = await web.app.inject({ method: 'GET', url: '/queues', headers: bearer });
    expect(board.statusCode).toBe(200);
    expect(board.headers['x-frame-options']).toBe('DENY');
    expect(String(board.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
  });
});
