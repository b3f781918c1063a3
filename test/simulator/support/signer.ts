import { createHmac } from 'node:crypto';
import http from 'node:http';

/**
 * Test-only signer and caller, written from docs/exchange-api.md §2.3-§2.4 independently of
 * both the client's signer and the simulator's verifier.
 */
export interface Credentials {
  apiKey: string;
  secretKey: string;
  passphrase: string;
}

export function signRequest(secretKey: string, prehash: string): string {
  return createHmac('sha256', secretKey).update(prehash).digest('base64');
}

export interface CallOptions {
  /** Raw query string without '?', sent exactly as given. */
  query?: string;
  body?: string;
  timestamp?: number;
  /** Sign these instead of what is sent (to tamper). */
  signQuery?: string;
  signBody?: string;
  /** Extra or replacing headers; undefined values remove a header. */
  headers?: Record<string, string | undefined>;
  /** Leave from this local address (e.g. 127.0.0.2) to appear as another caller IP. */
  localAddress?: string;
}

export interface CallResult<T = unknown> {
  status: number;
  json: { code: string; msg: string; requestTime: number; data: T };
  text: string;
}

export async function call<T = unknown>(
  baseUrl: string,
  credentials: Credentials | undefined,
  method: 'GET' | 'POST',
  path: string,
  options: CallOptions = {},
): Promise<CallResult<T>> {
  const query = options.query ?? '';
  const body = options.body ?? '';
  const timestamp = String(options.timestamp ?? Date.now());
  const headers: Record<string, string> = { 'content-type': 'application/json', locale: 'en-US' };
  if (credentials) {
    const signedQuery = options.signQuery ?? query;
    const prehash = `${timestamp}${method}${path}${signedQuery ? `?${signedQuery}` : ''}${options.signBody ?? body}`;
    headers['access-key'] = credentials.apiKey;
    headers['access-sign'] = signRequest(credentials.secretKey, prehash);
    headers['access-passphrase'] = credentials.passphrase;
    headers['access-timestamp'] = timestamp;
  }
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (value === undefined) delete headers[name];
    else headers[name] = value;
  }
  const response = await send(
    `${baseUrl}${path}${query ? `?${query}` : ''}`,
    method,
    headers,
    body,
    options.localAddress,
  );
  return { status: response.status, json: JSON.parse(response.text) as CallResult<T>['json'], text: response.text };
}

/** A plain node:http exchange (undici cannot pick the local address). Rejects when the connection is reset. */
export function send(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: string,
  localAddress?: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, ...(localAddress ? { localAddress } : {}) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (method === 'POST') req.end(body);
    else req.end();
  });
}

/** key=value pairs in ascending key order, as the client sends them. */
export function sortedQuery(params: Record<string, string | number | undefined>): string {
  return Object.keys(params)
    .filter((key) => params[key] !== undefined)
    .sort()
    .map((key) => `${encodeURIComponent(key)}=${encodeURIComponent(String(params[key]))}`)
    .join('&');
}
