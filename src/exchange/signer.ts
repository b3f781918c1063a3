import { createHmac } from 'node:crypto';

export const LOCALES = ['en-US', 'zh-CN', 'ja-JP', 'ko-KR'] as const;
export type Locale = (typeof LOCALES)[number];

export type QueryValue = string | undefined;

/**
 * The query string exactly as it goes into the URL and into the signature:
 * keys sorted ascending, absent values left out, keys and values
 * percent-encoded (docs/exchange-api.md §2.4). Empty when nothing is left.
 */
export function buildQueryString(query: Readonly<Record<string, QueryValue>>): string {
  return Object.keys(query)
    .filter((key) => query[key] !== undefined)
    .sort()
    .map((key) => `${encodeURIComponent(key)}=${encodeURIComponent(query[key] as string)}`)
    .join('&');
}

export interface SignInput {
  timestamp: string;
  method: 'GET' | 'POST';
  /** Path only, e.g. `/api/v2/tax/spot-record`. */
  requestPath: string;
  /** As built by buildQueryString; empty for none. */
  queryString: string;
  /** The exact JSON text sent; empty for GET. */
  body: string;
}

/** `timestamp + METHOD + requestPath [+ "?" + queryString] + body`. */
export function prehash(input: SignInput): string {
  const query = input.queryString === '' ? '' : `?${input.queryString}`;
  return `${input.timestamp}${input.method}${input.requestPath}${query}${input.body}`;
}

/** ACCESS-SIGN = base64(HMAC-SHA256(secretKey, prehash)), prehash hashed as UTF-8. */
export function sign(secretKey: string, input: SignInput): string {
  return createHmac('sha256', secretKey).update(prehash(input), 'utf8').digest('base64');
}

export interface Credentials {
  apiKey: string;
  secretKey: string;
  passphrase: string;
}

/** The authentication headers of one request. The result holds the passphrase: never log it. */
export function authHeaders(credentials: Credentials, input: SignInput, locale: Locale): Record<string, string> {
  const headers: Record<string, string> = {
    'ACCESS-KEY': credentials.apiKey,
    'ACCESS-SIGN': sign(credentials.secretKey, input),
    'ACCESS-TIMESTAMP': input.timestamp,
    'ACCESS-PASSPHRASE': credentials.passphrase,
    locale,
  };
  if (input.method === 'POST') headers['Content-Type'] = 'application/json';
  return headers;
}
