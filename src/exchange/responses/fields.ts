import { z } from 'zod';

/**
 * Field types of exchange answers. Amounts and ids stay the exact strings the
 * exchange sent (never Number: that would round); the regexes only prove the
 * string can be read as what it claims to be.
 */

/** A decimal amount, optionally signed: `-0.00012`, `1500`. */
export const decimal = z.string().regex(/^[-+]?\d+(\.\d+)?$/, { error: 'must be a decimal number as a string' });

/** Unix milliseconds as a string. */
export const timestamp = z.string().regex(/^\d{1,16}$/, { error: 'must be Unix milliseconds as a string' });

export const id = z.string().min(1, { error: 'must be a non-empty string' });

/** An optional id the exchange may send as null, "" or leave out: normalized to null. */
export const optionalId = z
  .string()
  .nullish()
  .transform((value) => (value === undefined || value === null || value === '' ? null : value));
