import { isIP } from 'node:net';

/** `::ffff:127.0.0.1` and `127.0.0.1` are the same caller. */
export function normalizeIp(address: string): string {
  const trimmed = address.trim().toLowerCase();
  if (trimmed.startsWith('::ffff:') && isIP(trimmed.slice(7)) === 4) return trimmed.slice(7);
  return trimmed;
}

export function isValidIp(value: unknown): value is string {
  return typeof value === 'string' && isIP(value.trim()) !== 0;
}

/** An empty whitelist admits every caller; otherwise the caller must be listed. */
export function ipAllowed(ipList: readonly string[], callerIp: string): boolean {
  if (ipList.length === 0) return true;
  const caller = normalizeIp(callerIp);
  return ipList.some((entry) => normalizeIp(entry) === caller);
}
