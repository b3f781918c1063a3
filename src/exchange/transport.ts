import type { Readable } from 'node:stream';

import { Pool } from 'undici';

import { exchangeRateLimited, exchangeRequests } from '../metrics/instruments.ts';
import { ExchangeNetworkError, OversizedResponseError } from './errors/exchange-error.ts';

export interface TransportTimeouts {
  /** Opening a TCP connection. */
  connectMs: number;
  /** From sending the request to the end of the answer's headers. */
  headersMs: number;
  /** Longest silence while the body arrives. */
  bodyMs: number;
  /**
   * The whole request, connect + headers + body (EXCHANGE_DEADLINE_MS): the timeouts above bound
   * silences, so an answer trickled a byte at a time would otherwise never end.
   */
  totalMs: number;
}

export const DEFAULT_TIMEOUTS: TransportTimeouts = {
  connectMs: 5_000,
  headersMs: 15_000,
  bodyMs: 15_000,
  totalMs: 30_000,
};

/**
 * The largest answer read (EXCHANGE_MAX_ANSWER_BYTES): 16 MiB. A full page of 500 records is
 * well under 1 MiB; without a bound, a page whose records carry large extra fields (all kept in
 * `raw`) is held whole, as text and then parsed, however large it is.
 */
export const DEFAULT_MAX_ANSWER_BYTES = 16 * 1024 * 1024;

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
 * reached the exchange, which is what decides if a POST may be repeated. An
 * answer larger than `maxAnswerBytes` is refused (OversizedResponseError) by
 * its Content-Length or, without one, as soon as more has arrived: the
 * connection is closed there, nothing more is read.
 */
export class Transport {
  private readonly pool: Pool;
  private readonly totalMs: number;
  private readonly headersMs: number;
  private readonly bodyMs: number;

  constructor(
    origin: string,
    timeouts: Partial<TransportTimeouts> = DEFAULT_TIMEOUTS,
    connections = 8,
    private readonly maxAnswerBytes = DEFAULT_MAX_ANSWER_BYTES,
  ) {
    const { connectMs, headersMs, bodyMs, totalMs } = { ...DEFAULT_TIMEOUTS, ...timeouts };
    this.totalMs = totalMs;
    this.headersMs = headersMs;
    this.bodyMs = bodyMs;
    this.pool = new Pool(origin, {
      connections,
      connectTimeout: connectMs,
      headersTimeout: headersMs,
      bodyTimeout: bodyMs,
      keepAliveTimeout: 4_000,
    });
  }

  async send(request: TransportRequest): Promise<HttpAnswer> {
    // One deadline for the whole request: aborting it ends the connect, the wait for headers and
    // the body's reading alike, and the error says it was the deadline.
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new DeadlineExceeded(this.totalMs)), this.totalMs);
    timer.unref();
    try {
      return await this.sendWithin(request, deadline.signal);
    } finally {
      clearTimeout(timer);
    }
  }

  private async sendWithin(request: TransportRequest, signal: AbortSignal): Promise<HttpAnswer> {
    let status: number;
    let bodyStream;
    let declaredLength;
    try {
      const answer = await this.pool.request({
        method: request.method,
        path: request.pathAndQuery,
        headers: request.headers,
        body: request.body,
        signal,
      });
      status = answer.statusCode;
      bodyStream = answer.body;
      declaredLength = answer.headers['content-length'];
      exchangeRequests.inc({ endpoint: request.endpoint, status: String(status) });
      if (status === 429) exchangeRateLimited.inc({ endpoint: request.endpoint });
    } catch (cause) {
      exchangeRequests.inc({ endpoint: request.endpoint, status: 'network' });
      if (signal.aborted) throw deadlineError(request.endpoint, signal, undefined, cause);
      const code = errorCode(cause);
      throw new ExchangeNetworkError({
        endpoint: request.endpoint,
        code: 'NETWORK',
        msg: `${code ?? 'request failed'}: ${this.explain(code) ?? (cause as Error).message}`,
        cause,
        requestMayHaveBeenSent: code === undefined || !NOT_SENT_CODES.has(code),
      });
    }
    const limit = this.maxAnswerBytes;
    if (typeof declaredLength === 'string' && Number(declaredLength) > limit) {
      abandon(bodyStream);
      throw new OversizedResponseError(request.endpoint, limit, `Content-Length ${declaredLength}`, status);
    }
    let body: string | undefined;
    try {
      body = await readWithin(bodyStream, limit);
    } catch (cause) {
      if (signal.aborted) throw deadlineError(request.endpoint, signal, status, cause);
      throw new ExchangeNetworkError({
        endpoint: request.endpoint,
        code: 'TRUNCATED_BODY',
        msg: `the answer broke off: ${errorCode(cause) ?? ''} ${this.explain(errorCode(cause)) ?? (cause as Error).message}`,
        httpStatus: status,
        cause,
        requestMayHaveBeenSent: true,
      });
    }
    if (body === undefined) {
      throw new OversizedResponseError(
        request.endpoint,
        limit,
        'more than that arrived: reading stopped there',
        status,
      );
    }
    return { status, body };
  }

  async close(): Promise<void> {
    await this.pool.close();
  }

  /** A timeout as the operator reads it: how long, and the setting that says so. */
  private explain(code: string | undefined): string | undefined {
    if (code === 'UND_ERR_HEADERS_TIMEOUT') return `no answer within ${this.headersMs} ms (EXCHANGE_TIMEOUT_MS)`;
    if (code === 'UND_ERR_BODY_TIMEOUT') return `the answer fell silent for ${this.bodyMs} ms (EXCHANGE_TIMEOUT_MS)`;
    return undefined;
  }
}

/** Why a request was aborted: its deadline (EXCHANGE_DEADLINE_MS) passed. */
class DeadlineExceeded extends Error {
  constructor(readonly totalMs: number) {
    super(`no complete answer within the ${totalMs} ms deadline (EXCHANGE_DEADLINE_MS)`);
    this.name = 'DeadlineExceeded';
  }
}

/**
 * The deadline as the caller sees it: a network error (retryable for a GET; for a POST the
 * request may have been acted on), code DEADLINE, saying how long it was given.
 */
function deadlineError(endpoint: string, signal: AbortSignal, httpStatus: number | undefined, cause: unknown) {
  const reason = signal.reason instanceof DeadlineExceeded ? signal.reason : undefined;
  return new ExchangeNetworkError({
    endpoint,
    code: 'DEADLINE',
    msg: reason?.message ?? 'the request was aborted',
    httpStatus,
    cause,
    requestMayHaveBeenSent: true,
  });
}

/**
 * The body as text, or undefined as soon as more than `limit` bytes have arrived (the stream is
 * then abandoned, which closes the connection: the rest is never read). Decoded as undici's
 * `text()` would: UTF-8, a leading byte-order mark skipped.
 */
async function readWithin(body: Readable, limit: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    received += chunk.length;
    if (received > limit) {
      abandon(body);
      return undefined;
    }
    chunks.push(chunk);
  }
  const bytes = Buffer.concat(chunks, received);
  const bom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  return bytes.toString('utf8', bom ? 3 : 0);
}

/** Stops reading an answer: undici aborts the request and closes its connection. */
function abandon(body: Readable): void {
  // Destroying it raises the abort as an 'error' event that no one else waits for any more.
  body.on('error', () => undefined);
  body.destroy();
}

function errorCode(error: unknown): string | undefined {
  if (error === null || typeof error !== 'object') return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  return errorCode((error as { cause?: unknown }).cause);
}
