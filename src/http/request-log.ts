import type { FastifyBaseLogger, FastifyRequest } from 'fastify';

/**
 * The request as the web server's log lines show it (fastify's own fields), the query string cut:
 * a token or a session put in a URL (`/exports?token=...`, a pasted link) must not be written to
 * the log, which outlives it and is read by more people. The path stays: it says what was asked.
 */
export function loggedRequest(request: FastifyRequest): Record<string, unknown> {
  return {
    method: request.method,
    url: withoutQuery(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/** `/path?anything` as `/path?[redacted]`: that there was a query is kept, never its text. */
export function withoutQuery(url: string): string {
  const mark = url.indexOf('?');
  return mark === -1 ? url : `${url.slice(0, mark)}?[redacted]`;
}

/**
 * The logger the web app hands fastify: its request serializer replaced. A child's serializers
 * win over fastify's defaults (fastify merges the instance's own over its `req` serializer).
 */
export function webRequestLogger(log: FastifyBaseLogger): FastifyBaseLogger {
  return log.child({}, { serializers: { req: loggedRequest } });
}
