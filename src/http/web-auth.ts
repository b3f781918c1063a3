import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

import type { FastifyReply, FastifyRequest } from 'fastify';

import type { Config } from '../config/config.ts';
import { ConfigError } from '../errors/index.ts';
import type { SignInLimiter } from './sign-in-limiter.ts';

export const SESSION_COOKIE = 'll_session';

/** The configured token, or a ConfigError: the page never starts unprotected. */
export function requireWebToken(config: Config): string {
  if (!config.web.token) {
    throw new ConfigError('LEDGERLINE_WEB_TOKEN', 'is required to start the web page (openssl rand -hex 32)');
  }
  return config.web.token;
}

/** Constant-time comparison of two secrets of any length (both are hashed to 32 bytes first). */
export function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

/** How long a sign-in lasts: the cookie carries its issue time, signed, and is refused after this. */
export const SESSION_MAX_AGE_S = 12 * 3600;

const sessionMac = (token: string, issuedAt: string) =>
  createHmac('sha256', token).update(`ledgerline-web-session-v2.${issuedAt}`).digest('base64url');

/**
 * The session cookie's value: its issue time and an HMAC of it under the token, so the token
 * itself never sits in a cookie, nothing is stored server-side, a session ends after
 * SESSION_MAX_AGE_S, and changing the token signs everybody out.
 */
export function sessionValue(token: string, issuedAt = Date.now()): string {
  const seconds = String(Math.floor(issuedAt / 1000));
  return `${seconds}.${sessionMac(token, seconds)}`;
}

function validSession(cookie: string, token: string, now = Date.now()): boolean {
  const [seconds, mac] = cookie.split('.');
  if (!seconds || !mac || !/^\d{1,12}$/.test(seconds)) return false;
  const age = now / 1000 - Number(seconds);
  return age >= -60 && age < SESSION_MAX_AGE_S && sameSecret(mac, sessionMac(token, seconds));
}

/** A bearer token in the Authorization header (scripts: curl, a monthly fetch), if any. */
function bearer(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^bearer (.+)$/i.exec(header) : null;
  return match?.[1];
}

export function isSignedIn(request: FastifyRequest, token: string): boolean {
  const cookie = request.cookies[SESSION_COOKIE];
  if (cookie && validSession(cookie, token)) return true;
  const given = bearer(request);
  return given !== undefined && sameSecret(given, token);
}

/**
 * A state-changing request sent from another origin (another port on the same host, a
 * sibling subdomain: SameSite=Strict lets their cookies through). Sec-Fetch-Site decides where
 * the browser sends it; `Origin` only without it, since with Referrer-Policy no-referrer
 * browsers send `Origin: null` even on same-origin form posts.
 */
function crossSite(request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site) return site !== 'same-origin' && site !== 'none';
  const origin = request.headers.origin;
  return Boolean(origin) && origin !== `${request.protocol}://${request.headers.host}`;
}

const PUBLIC = new Set(['/login', '/healthz']);

/**
 * Refuses everything but the sign-in page to a request without a valid session or token,
 * any state-changing request from another origin, and a bearer token from an address that
 * failed too often.
 */
export function authGuard(token: string, limiter: SignInLimiter) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const url = request.url.split('?')[0]!;
    const unsafe = request.method !== 'GET' && request.method !== 'HEAD';
    if (unsafe && crossSite(request)) {
      return reply.code(403).type('text/plain; charset=utf-8').send('cross-origin request refused\n');
    }
    if (PUBLIC.has(url)) return;
    if (bearer(request) !== undefined) {
      if (await limiter.blocked(request.ip)) {
        return reply.code(429).type('text/plain; charset=utf-8').send('too many failed attempts: wait a minute\n');
      }
      if (!isSignedIn(request, token)) await limiter.failed(request.ip, request.log, 'bearer');
    }
    if (isSignedIn(request, token)) return;
    const wantsPage =
      request.method === 'GET' &&
      (request.headers.accept ?? '').includes('text/html') &&
      !url.startsWith('/downloads/') &&
      !url.startsWith('/stream/');
    if (wantsPage) return reply.code(303).header('location', '/login').send();
    return reply.code(401).header('content-type', 'text/plain; charset=utf-8').send('sign in required\n');
  };
}
