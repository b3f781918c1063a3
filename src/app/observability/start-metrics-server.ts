import Fastify, { type FastifyInstance } from 'fastify';

import type { Logger } from '../../logging/logger.ts';
import type { AppRuntime } from '../app-runtime.ts';
import { probeRoutes } from './probe-routes.ts';
import { type CountedQueues, createMetricsRegistry } from './scrape-metrics.ts';

export interface MetricsServer {
  /** The address it listens on (the port chosen when METRICS_PORT is 0). */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * The worker's GET /metrics (Prometheus text), /livez and /readyz on
 * METRICS_HOST:METRICS_PORT. A scrape that cannot read Postgres or Redis
 * answers 503 with the reason, never a partial page that would read as zeros.
 */
export async function startMetricsServer(
  runtime: Pick<AppRuntime, 'pool' | 'redis'> & { queues: CountedQueues },
  listen: { host: string; port: number },
  log: Logger,
): Promise<MetricsServer> {
  const registry = createMetricsRegistry(runtime);
  const app: FastifyInstance = Fastify();
  await app.register(probeRoutes({ pool: runtime.pool, redis: runtime.redis }));
  app.get('/metrics', async (_request, reply) => {
    try {
      const text = await registry.metrics();
      return reply.type(registry.contentType).send(text);
    } catch (error) {
      log.warn({ err: error }, 'metrics scrape failed');
      return reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .send(`metrics unavailable: ${(error as Error).message}\n`);
    }
  });
  const address = await app.listen({ host: listen.host, port: listen.port });
  log.info({ url: address }, 'metrics and probes listening');
  return { url: address, close: () => app.close() };
}
