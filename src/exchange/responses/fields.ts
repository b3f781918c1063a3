import { z } from 'zod';

import { noteDrift } from './shape-drift.ts';

/**
 * Field types of exchange answers. Amounts and ids stay the exact strings the
 * exchange sent (never Number: that would round); the regexes only prove the
 * string can be read as what it claims to be.
 */

/** A decimal amount, optionally signed: `-0.00012`, `1500`. */
export const DECIMAL = /^[-+]?\d+(\.\d+)?$/;
export const decimal = z.string().regex(DECIMAL, { error: 'must be a decimal number as a string' });

/** Unix milliseconds as a string. */
export const UNIX_MS = /^\d{1,16}$/;
export const timestamp = z.string().regex(UNIX_MS, { error: 'must be Unix milliseconds as a string' });

export const id = z.string().min(1, { error: 'must be a non-empty string' });

/** An optional id the exchange may send as null, "" or leave out: normalized to null. */
export const optionalId = z
  .string()
  .nullish()
  .transform((value) => (value === undefined || value === null || value === '' ? null : value));

/**
 * A value the spec lists (holdSide, status, ...). Any non-empty string is
 * accepted: the exchange adds values before its docs do, and ingestion stores
 * an unlisted one flagged rather than refusing the whole page.
 */
export const listedValue = z.string().min(1, { error: 'must be a non-empty string' });

/** The item exactly as the exchange sent it, kept beside the normalized fields. */
export const rawItem = z.record(z.string(), z.unknown());

/** Adds `raw`, a copy of the item as received, before the item's schema parses it. */
export function keepingRaw<T extends z.ZodType>(schema: T) {
  return z.preprocess(
    (item) =>
      item !== null && typeof item === 'object' && !Array.isArray(item) ? { ...item, raw: { ...item } } : item,
    schema,
  );
}

/**
 * A documented field the copy can do without (not identity, money, time or paging): absent,
 * null or of another type than documented, it reads as null and is noted as drift (`absent` or
 * `type`, under `field`) instead of refusing the answer. `raw` keeps what was sent.
 */
export function tolerated<T>(field: string, schema: z.ZodType<T, unknown>) {
  return z
    .unknown()
    .optional()
    .transform((value): T | null => {
      if (value === undefined || value === null) {
        noteDrift(field, 'absent');
        return null;
      }
      const read = schema.safeParse(value);
      if (read.success) return read.data;
      noteDrift(field, 'type');
      return null;
    });
}

/**
 * Notes every key of an object the contract does not list (`known`) as `unlisted` drift under
 * `prefix` + key; the object itself passes on unchanged (its schema then drops those keys, and
 * `raw`, where kept, has them).
 */
export function notingUnlisted<T extends z.ZodType>(known: readonly string[], schema: T, prefix = '') {
  const listed = new Set(known);
  return z.preprocess((item) => {
    if (item !== null && typeof item === 'object' && !Array.isArray(item)) {
      for (const key in item) if (!listed.has(key)) noteDrift(`${prefix}${key}`, 'unlisted');
    }
    return item;
  }, schema);
}
