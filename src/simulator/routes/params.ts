import { errors } from '../envelope.ts';

/** Query and body parsing with the exact codes of docs/exchange-api.md §3.3 (40019 missing, 40020 invalid). */

export function optionalQuery(query: URLSearchParams, name: string): string | undefined {
  const value = query.get(name);
  return value === null || value === '' ? undefined : value;
}

export function requiredQuery(query: URLSearchParams, name: string): string {
  const value = optionalQuery(query, name);
  if (value === undefined) throw errors.missingParam(name);
  return value;
}

/** Unix ms as a decimal string. */
export function optionalTime(query: URLSearchParams, name: string): number | undefined {
  const value = optionalQuery(query, name);
  if (value === undefined) return undefined;
  if (!/^\d{1,15}$/.test(value)) throw errors.invalidParam(name);
  return Number(value);
}

/** A record id: digits; ids beyond every stored id simply mean "everything". */
export function optionalId(query: URLSearchParams, name: string): number | undefined {
  const value = optionalQuery(query, name);
  if (value === undefined) return undefined;
  if (!/^\d{1,30}$/.test(value)) throw errors.invalidParam(name);
  return Number(value);
}

export function limitParam(query: URLSearchParams, fallback: number, max: number): number {
  const value = optionalQuery(query, 'limit');
  if (value === undefined) return fallback;
  if (!/^\d{1,6}$/.test(value)) throw errors.invalidParam('limit');
  const limit = Number(value);
  if (limit < 1 || limit > max) throw errors.invalidParam('limit');
  return limit;
}

export function enumQuery<T extends string>(
  query: URLSearchParams,
  name: string,
  allowed: readonly T[],
): T | undefined {
  const value = optionalQuery(query, name);
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw errors.invalidParam(name);
  return value as T;
}

/** The body as JSON; an empty body is `{}`. */
export function parseBody(raw: string): unknown {
  if (raw.trim() === '') return {};
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw errors.invalidParam('body');
  }
}

export type JsonObject = Record<string, unknown>;

export function asObject(body: unknown): JsonObject {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw errors.invalidParam('body');
  return body as JsonObject;
}

export function isMissing(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

export function requiredString(body: JsonObject, name: string): string {
  const value = body[name];
  if (isMissing(value)) throw errors.missingParam(name);
  if (typeof value !== 'string') throw errors.invalidParam(name);
  return value;
}

export function optionalString(body: JsonObject, name: string): string | undefined {
  const value = body[name];
  if (isMissing(value)) return undefined;
  if (typeof value !== 'string') throw errors.invalidParam(name);
  return value;
}

/** Unix ms as a decimal string, required (the tax ledgers' startTime and endTime). */
export function requiredTime(query: URLSearchParams, name: string): number {
  const value = requiredQuery(query, name);
  if (!/^\d{1,15}$/.test(value)) throw errors.invalidParam(name);
  return Number(value);
}
