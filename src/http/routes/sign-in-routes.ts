import type { FastifyPluginAsync } from 'fastify';

import { loginPage } from '../page-layout.ts';
import { sendPage } from '../route-kit.ts';
import { markSecureIfHttps } from '../security-plugins.ts';
import type { SignInLimiter } from '../sign-in-limiter.ts';
import { roleOfToken, SESSION_COOKIE } from '../web-auth.ts';
import type { WebAppDeps } from '../web-deps.ts';

/** Sign in with a token (a session cookie follows), sign out (the stored session is deleted). */
export function signInRoutes(deps: Pick<WebAppDeps, 'tokens'>, limiter: SignInLimiter): FastifyPluginAsync {
  return async (app) => {
    app.get('/login', async (_request, reply) => sendPage(reply, loginPage(reply.generateCsrf())));

    // Public, so the auth hook does not check its form token: this route does.
    app.post('/login', { preHandler: app.csrfProtection }, async (request, reply) => {
      const given = ((request.body ?? {}) as Record<string, unknown>).token;
      // Checked before the token is compared: inside a lockout even the right token is refused.
      if (await limiter.blocked(request.ip)) {
        return sendPage(reply, loginPage(reply.generateCsrf(), 'Too many attempts: wait a minute.'), 429);
      }
      const role = typeof given === 'string' ? roleOfToken(given, deps.tokens) : undefined;
      if (!role) {
        await limiter.failed(request.ip, request.log, 'form');
        return sendPage(reply, loginPage(reply.generateCsrf(), 'That token is not valid.'), 401);
      }
      // A new session id at sign-in: an id planted before it (session fixation) is worth nothing.
      await request.session.regenerate();
      markSecureIfHttps(request);
      request.session.role = role;
      return reply.code(303).header('location', '/').send();
    });

    // Deletes the stored session: the cookie, wherever a copy of it is, no longer signs anybody in.
    app.post('/logout', async (request, reply) => {
      await request.session.destroy();
      reply.clearCookie(SESSION_COOKIE, { path: '/' });
      return reply.code(303).header('location', '/login').send();
    });
  };
}
