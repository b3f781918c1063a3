import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signature verification of docs/exchange-api.md §2.3-§2.4, written on its own (never the
 * client's signer) so that the two implementations check each other.
 * prehash = timestamp + METHOD + path [+ '?' + query] + body.
 */
export function sign(secretKey: string, prehash: string): string {
  return createHmac('sha256', secretKey).update(prehash, 'utf8').digest('base64');
}

export interface SignedRequest {
  timestamp: string;
  method: string;
  path: string;
  /** The query string exactly as received, without '?'; empty when there is none. */
  rawQuery: string;
  /** The body exactly as received; empty for GET. */
  rawBody: string;
  signature: string;
}

/** Accepts a signature over the query as received or over its percent-decoded form. */
export function verifySignature(secretKey: string, request: SignedRequest): boolean {
  const given = Buffer.from(request.signature, 'utf8');
  for (const query of queryForms(request.rawQuery)) {
    const prehash = `${request.timestamp}${request.method.toUpperCase()}${request.path}${query ? `?${query}` : ''}${request.rawBody}`;
    const expected = Buffer.from(sign(secretKey, prehash), 'utf8');
    if (expected.length === given.length && timingSafeEqual(expected, given)) return true;
  }
  return false;
}

function queryForms(rawQuery: string): string[] {
  const forms = [rawQuery];
  const decoded = safeDecode(rawQuery);
  if (decoded !== undefined && decoded !== rawQuery) forms.push(decoded);
  if (rawQuery.includes('+')) {
    const plusDecoded = safeDecode(rawQuery.replace(/\+/g, ' '));
    if (plusDecoded !== undefined && !forms.includes(plusDecoded)) forms.push(plusDecoded);
  }
  return forms;
}

function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}
