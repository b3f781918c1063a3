import { describe, expect, it } from 'vitest';

import { loadConfig } from '../../src/config/config.ts';
import { parseTrustProxy } from '../../src/config/env-schema.ts';
import { ConfigError } from '../../src/errors/index.ts';
import { CSRF_FIELD, signIn, TOKEN, useWebApp } from './web-fixture.ts';

// The page behind a reverse proxy on the same host, trusted by address (TRUST_PROXY=127.0.0.1).
const web = useWebApp('webproxy', { trustProxy: ['127.0.0.1'] });
const form = { 'content-type': 'application/x-www-form-urlencoded' };

describe('TRUST_PROXY', () => {
  it('accepts false, true, a number of hops or proxy addresses, and names the rule otherwise', () => {
    expect(parseTrustProxy('false')).toBe(false);
    expect(parseTrustProxy('true')).toBe(true);
    expect(parseTrustProxy('2')).toBe(2);
    expect(parseTrustProxy('10.0.0.1, 192.168.0.0/16,::1')).toEqual(['10.0.0.1', '192.168.0.0/16', '::1']);
    for (const bad of ['yes', '10.0.0.300', '10.0.0.0/33', 'proxy.local']) expect(parseTrustProxy(bad)).toBeUndefined();
    expect(() => loadConfig({ TRUST_PROXY: 'yes' })).toThrow(ConfigError);
    expect(() => loadConfig({ TRUST_PROXY: 'yes' })).toThrow(/TRUST_PROXY/);
    expect(loadConfig({ TRUST_PROXY: '127.0.0.1' }).web.trustProxy).toEqual(['127.0.0.1']);
  });

  it('locks out the client the proxy names, not the proxy itself', async () => {
    const page = await web.app.inject({ method: 'GET', url: '/login' });
    const cookie = String(page.headers['set-cookie']).split(';')[0]!;
    const csrf = encodeURIComponent(CSRF_FIELD.exec(page.body)![1]!);
    const attempt = (token: string, client: string) =>
      web.app.inject({
        method: 'POST',
        url: '/login',
        payload: `token=${encodeURIComponent(token)}&_csrf=${csrf}`,
        headers: { ...form, cookie, 'x-forwarded-for': client },
        remoteAddress: '127.0.0.1',
      });
    for (let k = 0; k < 10; k++) expect((await attempt(`wrong-${k}`, '203.0.113.7')).statusCode).toBe(401);
    expect((await attempt(TOKEN, '203.0.113.7')).statusCode).toBe(429);
    // Another office client behind the same proxy still signs in.
    expect((await attempt(TOKEN, '203.0.113.8')).statusCode).toBe(303);
  });

  it('marks the cookies Secure when the proxy says the request came over HTTPS, and not otherwise', async () => {
    const https = await signIn(web.app, TOKEN, {
      remoteAddress: '127.0.0.1',
      headers: { 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.9' },
    });
    expect(https.setCookie).toMatch(/ll_session=[^;]+;.*; Secure; SameSite=Strict/);
    const plain = await signIn(web.app, TOKEN, { remoteAddress: '127.0.0.1' });
    expect(plain.setCookie).not.toMatch(/Secure/);
    // An address that is not the trusted proxy cannot claim HTTPS for itself.
    const spoofed = await signIn(web.app, TOKEN, {
      remoteAddress: '198.51.100.4',
      headers: { 'x-forwarded-proto': 'https' },
    });
    expect(spoofed.setCookie).not.toMatch(/Secure/);
  });
});
