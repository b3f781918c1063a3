import type { FastifyInstance } from 'fastify';

import { checkReadiness, type ReadinessDeps } from './readiness.ts';

/**
 * GET /livez (the process answers) and GET /readyz (Postgres and Redis answer:
 * 200, else 503), for the worker's metrics server and `ledgerline web`. Both
 * say no more than which store is down: probes are unauthenticated.
 * Register it before any authentication hook, so that its routes inherit none.
 */
export function probeRoutes(deps: ReadinessDeps) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get('/livez', async (_request, reply) => reply.type('text/plain; charset=utf-8').send('ok\n'));
    app.get('/readyz', async (_request, reply) => {
      const readiness = await checkReadiness(deps);
      return reply
        .code(readiness.ready ? 200 : 503)
        .header('cache-control', 'no-store')
        .send(readiness);
    });
  };
}
