import { createHmac } from 'node:crypto';
import { Agent, request, type Dispatcher } from 'undici';

/**
 * Test-only signer and caller, written from decisions.md §1 independently of
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
  dispatcher?: Dispatcher;
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
  const response = await request(`${baseUrl}${path}${query ? `?${query}` : ''}`, {
    method,
    headers,
    ...(method === 'POST' ? { body } : {}),
    ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
  });
  const text = await response.body.text();
  return { status: response.statusCode, json: JSON.parse(text) as CallResult<T>['json'], text };
}

/** A dispatcher whose connections leave from the given local address (e.g. 127.0.0.2). */
export function agentFrom(localAddress: string): Agent {
  return new Agent({ connect: { localAddress } });
}

/** key=value pairs in ascending key order, as the client sends them. */
export function sortedQuery(params: Record<string, string | number | undefined>): string {
  return Object.keys(params)
    .filter((key) => params[key] !== undefined)
    .sort()
    .map((key) => `${encodeURIComponent(key)}=${encodeURIComponent(String(params[key]))}`)
    .join('&');
}
