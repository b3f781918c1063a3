import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

import type { Config } from '../config/config.ts';
import { ConfigError } from '../errors/index.ts';
import type { SignInLimiter } from './sign-in-limiter.ts';

/**
 * Who is asking: `accountant` (LEDGERLINE_WEB_TOKEN) reads and requests reports and sees the
 * queues read-only; `admin` (LEDGERLINE_ADMIN_TOKEN) also gets bull-board's actions.
 */
export type Role = 'accountant' | 'admin';

export interface WebTokens {
  readonly accountant: string;
  readonly admin?: string | undefined;
}

declare module 'fastify' {
  interface Session {
    role?: Role;
  }
  interface FastifyRequest {
    /** Set by the auth hook for every request it lets through to a non-public route. */
    role: Role | null;
  }
}

export const SESSION_COOKIE = 'll_session';

/** How long a sign-in lasts, signed-out or not: the cookie's and the stored session's lifetime. */
export const SESSION_MAX_AGE_S = 12 * 3600;

/** The configured tokens, or a ConfigError: the page never starts unprotected. */
export function requireWebTokens(config: Config): WebTokens {
  if (!config.web.token) {
    throw new ConfigError('LEDGERLINE_WEB_TOKEN', 'is required to start the web page (openssl rand -hex 32)');
  }
  if (config.web.adminToken !== undefined && config.web.adminToken === config.web.token) {
    throw new ConfigError('LEDGERLINE_ADMIN_TOKEN', 'must differ from LEDGERLINE_WEB_TOKEN');
  }
  return { accountant: config.web.token, admin: config.web.adminToken };
}

/** Constant-time comparison of two secrets of any length (both are hashed to 32 bytes first). */
export function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

/** The role a token grants, if any. Both tokens are always compared, so timing tells neither apart. */
export function roleOfToken(given: string, tokens: WebTokens): Role | undefined {
  const admin = tokens.admin !== undefined && sameSecret(given, tokens.admin);
  const accountant = sameSecret(given, tokens.accountant);
  return admin ? 'admin' : accountant ? 'accountant' : undefined;
}

/**
 * The key that signs the session and CSRF cookies, derived from both tokens: changing either
 * token signs everybody out, and no separate secret has to be configured.
 */
export function cookieSecret(tokens: WebTokens): string {
  return createHmac('sha256', `${tokens.accountant}\n${tokens.admin ?? ''}`)
    .update('ledgerline-web-cookies-v3')
    .digest('hex');
}

/** A bearer token in the Authorization header (scripts: curl, a monthly fetch), if any. */
function bearer(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^bearer (.+)$/i.exec(header) : null;
  return match?.[1];
}

export const BOARD_PATH = '/admin/queues';
export const READ_ONLY_BOARD_PATH = '/queues';

const under = (url: string, root: string) => url === root || url.startsWith(`${root}/`);
// The probes (src/app/observability/probe-routes.ts) say only whether Postgres and Redis answer.
const PUBLIC = new Set(['/login', '/healthz', '/livez', '/readyz']);

/**
 * A state-changing request bull-board's own script sends: PUT, PATCH and DELETE, or a JSON POST.
 * A page of another origin cannot send any of them without a CORS preflight, which this server
 * never grants, so they need no form token (bull-board's script could not send one).
 */
function boardApiCall(request: FastifyRequest): boolean {
  if (request.method !== 'POST') return true;
  return (request.headers['content-type'] ?? '').toLowerCase().startsWith('application/json');
}

/**
 * The one gate before every route:
 * - a state-changing request the browser marks as cross-site is refused outright;
 * - everything but sign-in and the health check needs a role, from a stored session or a bearer
 *   token (a bearer token from an address that failed too often is refused);
 * - bull-board's actions are the admin's; the read-only board answers reads only.
 * The CSRF token is checked after the body is parsed (csrfGuard).
 */
export function authGuard(tokens: WebTokens, limiter: SignInLimiter) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    const url = request.url.split('?')[0]!;
    const unsafe = request.method !== 'GET' && request.method !== 'HEAD';
    const site = request.headers['sec-fetch-site'];
    if (unsafe && site && site !== 'same-origin' && site !== 'none') {
      return reply.code(403).type('text/plain; charset=utf-8').send('cross-origin request refused\n');
    }
    if (PUBLIC.has(url)) return;

    const given = bearer(request);
    let role: Role | undefined;
    if (given !== undefined) {
      if (await limiter.blocked(request.ip)) {
        return reply.code(429).type('text/plain; charset=utf-8').send('too many failed attempts: wait a minute\n');
      }
      role = roleOfToken(given, tokens);
      if (!role) await limiter.failed(request.ip, request.log, 'bearer');
    } else {
      role = request.session.role;
    }
    if (!role) {
      const wantsPage =
        request.method === 'GET' &&
        (request.headers.accept ?? '').includes('text/html') &&
        !url.startsWith('/downloads/') &&
        !url.startsWith('/stream/');
      if (wantsPage) return reply.code(303).header('location', '/login').send();
      return reply.code(401).type('text/plain; charset=utf-8').send('sign in required\n');
    }
    request.role = role;

    if (under(url, READ_ONLY_BOARD_PATH) && unsafe) {
      return reply.code(403).type('text/plain; charset=utf-8').send('this board is read-only\n');
    }
    if (under(url, BOARD_PATH) && role !== 'admin') {
      return reply.code(403).type('text/plain; charset=utf-8').send('the queue actions need the admin token\n');
    }
  };
}

/**
 * A state-changing request on a session carries the CSRF token of our forms, since browsers send
 * no Sec-Fetch-Site to plain-HTTP origins other than localhost and `Origin: null` with
 * no-referrer. Excepted: bearer-token requests (a browser never adds that header on its own) and
 * bull-board's API calls, which no other origin can send (boardApiCall). A preHandler: the token
 * is in the parsed form body.
 */
export function csrfGuard(app: FastifyInstance) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    const url = request.url.split('?')[0]!;
    const unsafe = request.method !== 'GET' && request.method !== 'HEAD';
    if (!unsafe || PUBLIC.has(url) || bearer(request) !== undefined) return;
    if (under(url, BOARD_PATH) && boardApiCall(request)) return;
    // csrfProtection is synchronous: it either calls back or has already answered 403.
    let passed = false;
    app.csrfProtection(request, reply, () => {
      passed = true;
    });
    if (!passed) return reply;
  };
}
