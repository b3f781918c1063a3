import { errors } from '../envelope.ts';
import type { AccountRegistry } from '../state/accounts.ts';
import type { ApiKeyRecord } from '../state/types.ts';
import { ipAllowed } from './ip.ts';
import { verifySignature } from './signature.ts';

export interface AuthHeaders {
  apiKey: string;
  signature: string;
  passphrase: string;
  timestamp: string;
}

/** docs/exchange-api.md §2.5: more than 30 s between the request's timestamp and the server: 40008. */
export const TIMESTAMP_WINDOW_MS = 30_000;

type HeaderBag = Record<string, string | string[] | undefined>;

/** The four auth headers, present and well-formed, checked in the exchange's order. */
export function readAuthHeaders(headers: HeaderBag): AuthHeaders {
  const apiKey = single(headers['access-key']);
  if (!apiKey) throw errors.missingKey();
  const signature = single(headers['access-sign']);
  if (!signature) throw errors.missingSign();
  const passphrase = single(headers['access-passphrase']);
  if (!passphrase) throw errors.missingPassphrase();
  const timestamp = single(headers['access-timestamp']);
  if (!timestamp || !/^\d{1,16}$/.test(timestamp)) throw errors.badTimestamp();
  return { apiKey, signature, passphrase, timestamp };
}

export function findKey(accounts: AccountRegistry, headers: AuthHeaders): ApiKeyRecord {
  const key = accounts.key(headers.apiKey);
  if (!key) throw errors.unknownKey();
  return key;
}

export interface RequestFacts {
  method: string;
  path: string;
  rawQuery: string;
  rawBody: string;
  ip: string;
  /** Real time and simulated time: a timestamp close to either is accepted (see server notes). */
  wallNow: number;
  simNow: number;
}

/** Timestamp window, signature, passphrase and IP whitelist, in that order. */
export function verifyRequest(key: ApiKeyRecord, headers: AuthHeaders, facts: RequestFacts): void {
  const timestamp = Number(headers.timestamp);
  const skew = Math.min(Math.abs(timestamp - facts.wallNow), Math.abs(timestamp - facts.simNow));
  if (skew > TIMESTAMP_WINDOW_MS) throw errors.expired();
  const signed = verifySignature(key.secretKey, {
    timestamp: headers.timestamp,
    method: facts.method,
    path: facts.path,
    rawQuery: facts.rawQuery,
    rawBody: facts.rawBody,
    signature: headers.signature,
  });
  if (!signed) throw errors.badSign();
  if (headers.passphrase !== key.passphrase) throw errors.badPassphrase();
  if (!ipAllowed(key.ipList, facts.ip)) throw errors.ipNotAllowed();
}

function single(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text.length === 0 ? undefined : text;
}
