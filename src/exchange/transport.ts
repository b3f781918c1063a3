import { Pool } from 'undici';

import { exchangeRateLimited, exchangeRequests } from '../metrics/instruments.ts';
import { ExchangeNetworkError } from './errors/exchange-error.ts';

export interface TransportTimeouts {
  /** Opening a TCP connection. */
  connectMs: number;
  /** From sending the request to the end of the answer's headers. */
  headersMs: number;
  /** Longest silence while the body arrives. */
  bodyMs: number;
}

export const DEFAULT_TIMEOUTS: TransportTimeouts = { connectMs: 5_000, headersMs: 15_000, bodyMs: 15_000 };

export interface TransportRequest {
  endpoint: string;
  method: 'GET' | 'POST';
  /** Path plus `?query` exactly as signed. */
  pathAndQuery: string;
  headers: Record<string, string>;
  body?: string;
}

export interface HttpAnswer {
  status: number;
  body: string;
}

// Failures that happen before a connection exists: the request cannot have been sent.
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * Keep-alive HTTP/1.1 to one exchange origin. Turns every socket-level
 * failure into an ExchangeNetworkError that says whether the request may have
 * reached the exchange, which is what decides if a POST may be repeated.
 */
export class Transport {
  private readonly pool: Pool;

  constructor(origin: string, timeouts: TransportTimeouts = DEFAULT_TIMEOUTS, connections = 8) {
    this.pool = new Pool(origin, {
      connections,
      connectTimeout: timeouts.connectMs,
      headersTimeout: timeouts.headersMs,
      bodyTimeout: timeouts.bodyMs,
      keepAliveTimeout: 4_000,
    });
  }

  async send(request: TransportRequest): Promise<HttpAnswer> {
    let status: number;
    let bodyStream;
    try {
      const answer = await this.pool.request({
        method: request.method,
        path: request.pathAndQuery,
        headers: request.headers,
        body: request.body,
      });
      status = answer.statusCode;
      bodyStream = answer.body;
      exchangeRequests.inc({ endpoint: request.endpoint, status: String(status) });
      if (status === 429) exchangeRateLimited.inc({ endpoint: request.endpoint });
    } catch (cause) {
      exchangeRequests.inc({ endpoint: request.endpoint, status: 'network' });
      const code = errorCode(cause);
      throw new ExchangeNetworkError({
        endpoint: request.endpoint,
        code: 'NETWORK',
        msg: `${code ?? 'request failed'}: ${(cause as Error).message}`,
        cause,
        requestMayHaveBeenSent: code === undefined || !NOT_SENT_CODES.has(code),
      });
    }
    try {
      return { status, body: await bodyStream.text() };
    } catch (cause) {
      throw new ExchangeNetworkError({
        endpoint: request.endpoint,
        code: 'TRUNCATED_BODY',
        msg: `the answer broke off: ${errorCode(cause) ?? ''} ${(cause as Error).message}`,
        httpStatus: status,
        cause,
        requestMayHaveBeenSent: true,
      });
    }
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}

function errorCode(error: unknown): string | undefined {
  if (error === null || typeof error !== 'object') return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  return errorCode((error as { cause?: unknown }).cause);
}
