import { appRoutes } from '@bull-board/api/dist/routes.js';
import { describe, expect, it } from 'vitest';

import { createRedisConnection } from '../../src/app/redis-connection.ts';
import { TEST_REDIS_URL } from '../helpers/test-redis.ts';
import { ADMIN_TOKEN, cookiesOf, CSRF_FIELD, signIn, TOKEN, useWebApp } from './web-fixture.ts';

const web = useWebApp('webroles');

// Every state-changing route bull-board serves, with its parameters filled in for the export queue.
const ACTIONS = appRoutes.api
  .flatMap((route) =>
    (Array.isArray(route.method) ? route.method : [route.method]).flatMap((method) =>
      (Array.isArray(route.route) ? route.route : [route.route]).map((path) => ({ method, path })),
    ),
  )
  .filter(({ method }) => method !== 'get')
  .map(({ method, path }) => ({
    method: method.toUpperCase() as 'PUT' | 'POST' | 'PATCH',
    path: path
      .replace(':queueName', 'export')
      .replace(':queueStatus', 'failed')
      .replace(':jobId', 'no-such-job')
      .replace(':schedulerId', 'no-such-scheduler'),
  }));
const JSON_BODY = { 'content-type': 'application/json' };

describe('two roles', () => {
  it('knows bull-board state-changing routes to try (the list comes from bull-board itself)', () => {
    expect(ACTIONS.length).toBeGreaterThanOrEqual(20);
    expect(ACTIONS).toContainEqual({ method: 'PUT', path: '/api/queues/export/obliterate' });
    expect(ACTIONS).toContainEqual({ method: 'POST', path: '/api/queues/export/add' });
  });

  it("refuses every state-changing bull-board route to the accountants' token, by bearer or session, on both boards", async () => {
    const session = await signIn(web.app, TOKEN);
    const as = [
      { authorization: `Bearer ${TOKEN}` },
      { cookie: session.cookie, 'x-csrf-token': session.csrf },
      { cookie: session.cookie },
    ];
    for (const board of ['/admin/queues', '/queues']) {
      for (const action of ACTIONS) {
        for (const headers of as) {
          const response = await web.app.inject({
            method: action.method,
            url: board + action.path,
            headers: { ...JSON_BODY, ...headers },
            payload: JSON.stringify({ name: 'planted', data: {}, options: {} }),
          });
          expect([401, 403], `${action.method} ${board}${action.path}`).toContain(response.statusCode);
        }
      }
    }
    expect(await web.queue.isPaused()).toBe(false);
    expect(await web.queue.getJobCountByTypes('waiting', 'delayed', 'prioritized')).toBe(0);
    // Reading stays possible on the read-only board.
    const read = await web.app.inject({
      method: 'GET',
      url: '/queues/api/queues',
      headers: { cookie: session.cookie },
    });
    expect(read.statusCode).toBe(200);
  });

  it('lets the admin token pause, resume and add jobs through bull-board, by session or bearer', async () => {
    const admin = await signIn(web.app, ADMIN_TOKEN);
    const home = await web.app.inject({ method: 'GET', url: '/', headers: { cookie: admin.cookie } });
    expect(home.body).toContain('href="/admin/queues"');
    const call = (method: 'PUT' | 'POST', path: string, headers: Record<string, string>, payload = '{}') =>
      web.app.inject({ method, url: `/admin/queues${path}`, headers: { ...JSON_BODY, ...headers }, payload });
    const paused = await call('PUT', '/api/queues/export/pause', { cookie: admin.cookie });
    expect(paused.statusCode).toBe(200);
    expect(await web.queue.isPaused()).toBe(true);
    const resumed = await call('PUT', '/api/queues/export/resume', { authorization: `Bearer ${ADMIN_TOKEN}` });
    expect(resumed.statusCode).toBe(200);
    expect(await web.queue.isPaused()).toBe(false);
    await web.queue.pause();
    try {
      const added = await call(
        'POST',
        '/api/queues/export/add',
        { cookie: admin.cookie },
        JSON.stringify({ name: 'admin-added', data: {}, options: {} }),
      );
      expect(added.statusCode).toBe(200);
      expect(await web.queue.getJobCountByTypes('waiting')).toBe(1);
    } finally {
      await web.queue.obliterate({ force: true });
      await web.queue.resume();
    }
  });

  it("refuses the admin's board pages to the accountants and links them to the read-only one", async () => {
    const session = await signIn(web.app, TOKEN);
    const home = await web.app.inject({ method: 'GET', url: '/', headers: { cookie: session.cookie } });
    expect(home.body).toContain('href="/queues"');
    expect(home.body).not.toContain('href="/admin/queues"');
    const board = await web.app.inject({
      method: 'GET',
      url: '/admin/queues',
      headers: { cookie: session.cookie, accept: 'text/html' },
    });
    expect(board.statusCode).toBe(403);
  });
});

describe('sessions that end', () => {
  it('refuses a signed-out session, every copy of its cookie, and forgets it in Redis', async () => {
    const session = await signIn(web.app, TOKEN);
    const sid = decodeURIComponent(cookiesOf(session.setCookie).get('ll_session')!).split('.')[0]!;
    const redis = createRedisConnection(TEST_REDIS_URL);
    try {
      const key = `${web.prefix}:web-session:${sid}`;
      const ttl = await redis.ttl(key);
      expect(ttl).toBeGreaterThan(12 * 3600 - 60);
      expect(ttl).toBeLessThanOrEqual(12 * 3600);
      const stored = (await redis.get(key))!;
      expect(stored).toContain('"role":"accountant"');
      expect(stored).not.toContain(TOKEN);

      const before = await web.app.inject({ method: 'GET', url: '/', headers: { cookie: session.cookie } });
      expect(before.statusCode).toBe(200);
      const out = await web.app.inject({
        method: 'POST',
        url: '/logout',
        payload: `_csrf=${encodeURIComponent(session.csrf)}`,
        headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(out.statusCode).toBe(303);
      expect(await redis.exists(key)).toBe(0);
      // The old cookie, replayed as it was before sign-out, signs nobody in.
      const page = await web.app.inject({
        method: 'GET',
        url: '/',
        headers: { cookie: session.cookie, accept: 'text/html' },
      });
      expect([page.statusCode, page.headers.location]).toEqual([303, '/login']);
      const api = await web.app.inject({
        method: 'GET',
        url: '/queues/api/queues',
        headers: { cookie: session.cookie },
      });
      expect(api.statusCode).toBe(401);
    } finally {
      redis.disconnect();
    }
  });

  it('refuses a state-changing form without its CSRF token, over plain HTTP without fetch metadata', async () => {
    const session = await signIn(web.app, TOKEN);
    const form = { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded', origin: 'null' };
    const missing = await web.app.inject({ method: 'POST', url: '/logout', headers: form });
    expect(missing.statusCode).toBe(403);
    expect(missing.body).toContain('this form has expired or was not sent from this site');
    const wrong = await web.app.inject({ method: 'POST', url: '/logout', headers: form, payload: '_csrf=forged' });
    expect(wrong.statusCode).toBe(403);
    // Still signed in: neither forged sign-out worked.
    const page = await web.app.inject({ method: 'GET', url: '/', headers: { cookie: session.cookie } });
    expect(page.statusCode).toBe(200);
    expect(CSRF_FIELD.exec(page.body)?.[1]).toBeTruthy();
    // The sign-in form needs one too (no login CSRF).
    const login = await web.app.inject({
      method: 'POST',
      url: '/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `token=${TOKEN}`,
    });
    expect(login.statusCode).toBe(403);
  });
});
