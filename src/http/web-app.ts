import fastifyFormbody from '@fastify/formbody';
import Fastify, { type FastifyInstance } from 'fastify';

import { probeRoutes } from '../app/observability/probe-routes.ts';
import { mountBullBoards } from './bull-board.ts';
import { webRequestLogger } from './request-log.ts';
import { answerFailuresPlainly, frameworkErrorPage, redisReadiness, requireRedis } from './resilience.ts';
import { downloadRoutes } from './routes/download-routes.ts';
import { figureRowsRoutes } from './routes/figure-rows-routes.ts';
import { homeRoutes } from './routes/home-routes.ts';
import { jobRoutes } from './routes/job-routes.ts';
import { packRoutes } from './routes/pack-routes.ts';
import { signInRoutes } from './routes/sign-in-routes.ts';
import { streamRoutes } from './routes/stream-routes.ts';
import { supplyRoutes } from './routes/supply-routes.ts';
import { taxYearRoutes } from './routes/tax-year-routes.ts';
import { registerSecurityPlugins } from './security-plugins.ts';
import { SignInLimiter } from './sign-in-limiter.ts';
import { authGuard, csrfGuard } from './web-auth.ts';
import type { WebAppDeps } from './web-deps.ts';

export type { WebAppDeps } from './web-deps.ts';

const MAX_PARAM_LENGTH = 300;

/**
 * The accountants' page: sign in, request reports, watch them finish, download CSV and manifest,
 * the tax years. The composition root of the web process: the hooks every route passes through
 * (probes, security, sign-in, form tokens, Redis), then one route module per page or route group
 * (src/http/routes/), then the queue boards.
 */
export async function buildWebApp(deps: WebAppDeps): Promise<FastifyInstance> {
  // A number of hops is what proxy-addr does for a number; fastify's types only take its function.
  const hops = deps.trustProxy;
  const trustProxy =
    typeof hops === 'number'
      ? (_address: string, hop: number) => hop < hops
      : typeof hops === 'object'
        ? [...hops]
        : hops;
  // A route parameter may be as long as the longest it carries (an export's file name with its
  // zone, method, currency and _PARTIAL runs past fastify's default of 100); beyond that, and for
  // an address the router cannot read, a page says so (frameworkErrors), not fastify's JSON.
  const app = Fastify({
    loggerInstance: deps.logger === undefined ? undefined : webRequestLogger(deps.logger),
    trustProxy,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: frameworkErrorPage,
  });
  app.decorateRequest('role', null);
  answerFailuresPlainly(app);
  // Public (web-auth.ts's PUBLIC): a load balancer asks without signing in.
  await app.register(probeRoutes({ pool: deps.pool, redis: deps.redis }));
  const redisReady = redisReadiness(deps.redis);
  await registerSecurityPlugins(app, { tokens: deps.tokens, redis: deps.redis, prefix: deps.prefix, redisReady });
  await app.register(fastifyFormbody);
  const limiter = new SignInLimiter();
  // After the session plugin's own onRequest hook, which loads the session this one checks.
  app.addHook('onRequest', authGuard(deps.tokens, limiter));
  app.addHook('preHandler', csrfGuard(app));
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('cache-control', 'no-store');
    return payload;
  });
  requireRedis(app, redisReady);

  app.get('/healthz', async (_request, reply) => reply.type('text/plain').send('ok\n'));
  await app.register(signInRoutes(deps, limiter));
  await app.register(homeRoutes(deps));
  await app.register(jobRoutes(deps));
  await app.register(taxYearRoutes(deps));
  await app.register(figureRowsRoutes(deps));
  await app.register(downloadRoutes(deps));
  await app.register(packRoutes(deps));
  await app.register(streamRoutes(deps));
  await app.register(supplyRoutes(deps));

  await mountBullBoards(app, deps.boardQueues);
  return app;
}
