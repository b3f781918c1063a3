import { isValidIp } from '../auth/ip.ts';
import { errors } from '../envelope.ts';
import { isMissing, type JsonObject } from '../routes/params.ts';
import { type Permission, PERMISSIONS } from './types.ts';

/** The input rules of docs/exchange-api.md §6, each failing with its documented code. */

const PASSPHRASE = /^(?=.*[A-Za-z])(?=.*\d)[A-Za-z0-9]{8,32}$/;
const SUB_NAME = /^[A-Za-z]{8}$/;
const USERNAME = /^[a-z]{1,20}$/;
export const MAX_IP_LIST = 30;

export function passphraseOf(body: JsonObject): string {
  const value = body.passphrase;
  if (isMissing(value)) throw errors.missingParam('passphrase');
  if (typeof value !== 'string' || !PASSPHRASE.test(value)) throw errors.passphraseRule();
  return value;
}

export function labelOf(body: JsonObject): string {
  const value = body.label;
  if (value === undefined || value === null) throw errors.missingParam('label');
  if (typeof value !== 'string' || value.length < 1 || value.length > 20) throw errors.labelRule();
  return value;
}

export function subAccountNameOf(body: JsonObject): string {
  const value = body.subAccountName;
  if (isMissing(value)) throw errors.missingParam('subAccountName');
  if (typeof value !== 'string' || !SUB_NAME.test(value)) throw errors.subNameRule();
  return value;
}

export function usernameOf(body: JsonObject): string {
  const value = body.username;
  if (isMissing(value)) throw errors.missingParam('username');
  if (typeof value !== 'string' || !USERNAME.test(value)) throw errors.invalidParam('username');
  return value;
}

/** Absent (or null) is an empty whitelist. */
export function ipListOf(body: JsonObject): string[] {
  const value = body.ipList;
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.length > MAX_IP_LIST || !value.every(isValidIp)) {
    throw errors.invalidParam('ipList');
  }
  return value.map((ip: string) => ip.trim());
}

/** undefined when absent; otherwise every value must be allowed (duplicates collapse). */
export function permListOf(body: JsonObject, allowed: readonly Permission[] = PERMISSIONS): Permission[] | undefined {
  const value = body.permList;
  if (value === undefined || value === null) return undefined;
  if (
    !Array.isArray(value) ||
    !value.every((p) => typeof p === 'string' && (allowed as readonly string[]).includes(p))
  ) {
    throw errors.invalidParam('permList');
  }
  return [...new Set(value as Permission[])];
}
