import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config/config.ts';
import { ConfigError } from '../errors/index.ts';

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

/**
 * The session cookie's value: derived from the token, so the token itself never sits in a
 * cookie, nothing is stored server-side, and changing the token signs everybody out.
 */
export function sessionValue(token: string): string {
  return createHmac('sha256', token).update('ledgerline-web-session-v1').digest('base64url');
}

export function isSignedIn(request: FastifyRequest, token: string): boolean {
  const cookie = request.cookies[SESSION_COOKIE];
  if (cookie && sameSecret(cookie, sessionValue(token))) return true;
  // Scripts (curl, a monthly fetch) may send the token itself as a bearer token.
  const header = request.headers.authorization;
  return typeof header === 'string' && header.startsWith('Bearer ') && sameSecret(header.slice(7), token);
}

const PUBLIC = new Set(['/login', '/healthz']);

/** Refuses everything but the sign-in page to a request without a valid session or token. */
export function authGuard(token: string) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const url = request.url.split('?')[0]!;
    if (PUBLIC.has(url) || isSignedIn(request, token)) return;
    const wantsPage =
      request.method === 'GET' &&
      (request.headers.accept ?? '').includes('text/html') &&
      !url.startsWith('/downloads/') &&
      !url.startsWith('/stream/');
    if (wantsPage) return reply.code(303).header('location', '/login').send();
    return reply.code(401).header('content-type', 'text/plain; charset=utf-8').send('sign in required\n');
  };
}
