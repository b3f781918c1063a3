import { describe, expect, it } from 'vitest';

import { useWebApp } from '../http/web-fixture.ts';

const web = useWebApp('webprobes');

describe('ledgerline web probes', () => {
  it('answers /livez and /readyz without signing in, and still guards its pages', async () => {
    const live = await web.app.inject({ method: 'GET', url: '/livez' });
    expect(live.statusCode).toBe(200);
    expect(live.body).toBe('ok\n');
    const ready = await web.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ ready: true, postgres: true, redis: true });
    // The probes opened no way around sign-in.
    const page = await web.app.inject({ method: 'GET', url: '/', headers: { accept: 'text/html' } });
    expect([303, 401]).toContain(page.statusCode);
  });
});
