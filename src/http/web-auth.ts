import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

import type { Config } from '../config/config.ts';
import { ConfigError } from '../errors/index.ts';
import { PROBLEMS, sendProblem } from './error-pages.ts';
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
 * The route the router matched, as registered (`/admin/queues/api/queues/:queueName/pause`), or
 * undefined when none did. Every decision reads this, never `request.url`: the router decodes
 * `%61dmin` to `admin` and routes an absolute-form target (`http://host/admin/...`), so a check on
 * the raw URL and the route that answers could disagree.
 */
const routeOf = (request: FastifyRequest): string | undefined => request.routeOptions.url;

const refuse = (reply: FastifyReply, code: number, text: string) => sendProblem(reply, PROBLEMS.refused(code, text));

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
 * The one gate before every route, the unmatched ones included:
 * - a state-changing request the browser marks as cross-site is refused outright;
 * - every route but sign-in and the probes needs a role, from a stored session or a bearer token
 *   (a bearer token from an address that failed too often is refused).
 * What a role may do on the boards is decided inside their plugin scopes (boardGuard), so it holds
 * for whatever path reached them. The CSRF token is checked after the body is parsed (csrfGuard).
 */
export function authGuard(tokens: WebTokens, limiter: SignInLimiter) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    const route = routeOf(request);
    const unsafe = request.method !== 'GET' && request.method !== 'HEAD';
    const site = request.headers['sec-fetch-site'];
    if (unsafe && site && site !== 'same-origin' && site !== 'none') {
      return refuse(reply, 403, 'cross-origin request refused');
    }
    if (route !== undefined && PUBLIC.has(route)) return;

    const given = bearer(request);
    let role: Role | undefined;
    if (given !== undefined) {
      if (await limiter.blocked(request.ip)) return refuse(reply, 429, 'too many failed attempts: wait a minute');
      role = roleOfToken(given, tokens);
      if (!role) await limiter.failed(request.ip, request.log, 'bearer');
    } else {
      role = request.session.role;
    }
    if (!role) {
      const wantsPage =
        request.method === 'GET' &&
        (request.headers.accept ?? '').includes('text/html') &&
        !route?.startsWith('/downloads/') &&
        !route?.startsWith('/stream/');
      if (wantsPage) return reply.code(303).header('location', '/login').send();
      return refuse(reply, 401, 'sign in required');
    }
    request.role = role;
  };
}

/**
 * The gate of one board, added as an onRequest hook inside the plugin scope its routes are
 * registered in (bull-board.ts): fastify runs it for exactly the routes of that scope, after
 * authGuard, however the path was spelled. It allows, rather than refuses: the admin board only to
 * the admin, the read-only board only reads, and nothing to a request without a role.
 */
export function boardGuard(board: 'admin' | 'read-only') {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    if (request.role === null) return refuse(reply, 401, 'sign in required');
    if (board === 'admin') {
      if (request.role === 'admin') return;
      return refuse(reply, 403, 'the queue actions need the admin token');
    }
    if (request.method === 'GET' || request.method === 'HEAD') return;
    return refuse(reply, 403, 'this board is read-only');
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
    const route = routeOf(request);
    const unsafe = request.method !== 'GET' && request.method !== 'HEAD';
    if (!unsafe || (route !== undefined && PUBLIC.has(route)) || bearer(request) !== undefined) return;
    if (route !== undefined && under(route, BOARD_PATH) && boardApiCall(request)) return;
    // csrfProtection is synchronous: it either calls back or has already answered 403.
    let passed = false;
    app.csrfProtection(request, reply, () => {
      passed = true;
    });
    if (!passed) return reply;
  };
}
