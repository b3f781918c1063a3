import type { z } from 'zod';

import { RequestValidationError } from '../errors/request-validation-error.ts';

// Parameters whose values never appear in an error message.
const SECRET_FIELDS = new Set(['passphrase', 'secretKey', 'apiKey']);

/**
 * Parses the parameters of one call or throws a RequestValidationError for the
 * first broken rule, naming the field as a path (`orderList[3].clientOid`).
 */
export function validateRequest<S extends z.ZodType>(endpoint: string, schema: S, params: unknown): z.output<S> {
  const result = schema.safeParse(params);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  let path: PropertyKey[] = [...issue.path];
  let rule = issue.message;
  if (issue.code === 'unrecognized_keys') {
    path = [...path, issue.keys[0]!];
    rule = 'is not a parameter of this endpoint';
  }
  const field = formatPath(path);
  const last = path[path.length - 1];
  const secret = typeof last === 'string' && SECRET_FIELDS.has(last);
  const raw = valueAt(params, path);
  if (raw === undefined && issue.code !== 'custom') rule = `is required: ${rule}`;
  const value = secret && raw !== undefined ? '[redacted]' : describe(raw);
  throw new RequestValidationError(endpoint, field || 'params', rule, value);
}

function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((text, key) => {
    if (typeof key === 'number') return `${text}[${key}]`;
    return text === '' ? String(key) : `${text}.${String(key)}`;
  }, '');
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let current = root;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

function describe(value: unknown): unknown {
  if (Array.isArray(value)) return `a list of ${value.length} items`;
  if (value !== null && typeof value === 'object') return 'an object';
  return value;
}
