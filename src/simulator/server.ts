import Fastify, { type FastifyInstance } from 'fastify';

import { registerAdminRoutes } from './admin/routes.ts';
import type { SimContext } from './context.ts';
import { errorBody, errors } from './envelope.ts';
import { runEndpoint } from './pipeline.ts';
import { ENDPOINTS } from './routes/index.ts';

/** The simulated exchange's HTTP server: the spec's endpoints, plus /__sim when admin is on. */
export function buildServer(sim: SimContext, options: { admin: boolean }): FastifyInstance {
  const app = Fastify({ logger: false, bodyLimit: 1024 * 1024 });
  // Keep every body as the exact text received: signatures are over the raw bytes.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
  for (const endpoint of ENDPOINTS) {
    app.route({
      method: endpoint.method,
      url: endpoint.path,
      handler: (request, reply) => runEndpoint(sim, endpoint, request, reply),
    });
  }
  if (options.admin) registerAdminRoutes(app, sim);
  app.setNotFoundHandler((_request, reply) =>
    reply.code(404).type('application/json').send(errorBody(errors.notFound(), sim.clock.now())),
  );
  app.setErrorHandler((error: { statusCode?: number }, _request, reply) => {
    // Framework-level rejections (body too large, malformed framing) are the caller's fault.
    const apiError =
      error.statusCode !== undefined && error.statusCode < 500 ? errors.invalidParam('body') : errors.internal();
    return reply.code(apiError.status).type('application/json').send(errorBody(apiError, sim.clock.now()));
  });
  return app;
}
