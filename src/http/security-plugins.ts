import fastifyCookie from '@fastify/cookie';
import fastifyCsrf from '@fastify/csrf-protection';
import fastifyHelmet from '@fastify/helmet';
import fastifySession from '@fastify/session';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Cluster, Redis } from 'ioredis';

import { RedisSessionStore } from './redis-session-store.ts';
import { cookieSecret, SESSION_COOKIE, SESSION_MAX_AGE_S, type WebTokens } from './web-auth.ts';

export const CSRF_COOKIE = 'll_csrf';

/**
 * Headers, cookies, server-side sessions and CSRF tokens, from the fastify plugins that do
 * them. Cookies are `Secure` exactly when the request came over HTTPS (directly, or through a
 * trusted proxy's X-Forwarded-Proto: TRUST_PROXY), so the page also works over plain HTTP on an
 * office network and never sends its cookie in clear once TLS is in front.
 */
export async function registerSecurityPlugins(
  app: FastifyInstance,
  options: { tokens: WebTokens; redis: Redis | Cluster; prefix: string; redisReady: () => boolean | Promise<boolean> },
): Promise<void> {
  await app.register(fastifyHelmet, {
    // Helmet's policy needs a default-src that bull-board (its own scripts and styles) would have
    // to be fitted to, and adds upgrade-insecure-requests, which breaks plain HTTP. My pages send
    // a strict policy of their own (sendPage); every other answer gets frame-ancestors below.
    contentSecurityPolicy: false,
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    strictTransportSecurity: { maxAge: 31_536_000, includeSubDomains: false },
  });
  // Every page, bull-board's included, refuses to be framed (a click-trap on retry/remove).
  app.addHook('onSend', async (_request, reply, payload) => {
    if (!reply.hasHeader('content-security-policy')) reply.header('content-security-policy', "frame-ancestors 'none'");
    return payload;
  });
  const secret = cookieSecret(options.tokens);
  await app.register(fastifyCookie, { secret });
  await app.register(fastifySession, {
    secret,
    cookieName: SESSION_COOKIE,
    saveUninitialized: false,
    rolling: false,
    store: new RedisSessionStore(options.redis, options.prefix, SESSION_MAX_AGE_S, options.redisReady),
    // Not secure: 'auto', which turns SameSite=Strict into Lax over HTTP; sign-in sets Secure
    // for a session started over HTTPS (markSecureIfHttps).
    cookie: { path: '/', httpOnly: true, sameSite: 'strict', secure: false, maxAge: SESSION_MAX_AGE_S * 1000 },
  });
  // Double-submit: a signed secret in a cookie, a token derived from it in each form. Works
  // before sign-in too (the sign-in form carries one), without a session for every visitor.
  await app.register(fastifyCsrf, {
    sessionPlugin: '@fastify/cookie',
    cookieKey: CSRF_COOKIE,
    cookieOpts: { path: '/', httpOnly: true, sameSite: 'strict', secure: 'auto', signed: true },
  });
}

/** The session cookie is Secure when its session was started over HTTPS (directly or via a trusted proxy). */
export function markSecureIfHttps(request: FastifyRequest): void {
  request.session.cookie.secure = request.protocol === 'https';
}
