import { isIP } from 'node:net';

import { z } from 'zod';

/**
 * Building blocks of the request schemas. Each carries the rule in words, so a
 * ValidationError reads like the documented rule (docs/exchange-api.md §6).
 */

export const DAY_MS = 86_400_000;

// Unix ms as decimal digits, no sign, no leading zeros; 13 digits reach the year 2286.
const UNIX_MS = /^(0|[1-9]\d{0,12})$/;

/** Unix milliseconds, given as a decimal string or an integer; sent as the decimal string. */
export function unixMs() {
  const rule = 'must be Unix milliseconds as a decimal string of digits (0 to 9999999999999)';
  return z
    .union([z.string(), z.number()], { error: rule })
    .refine((value) => UNIX_MS.test(typeof value === 'number' ? numberText(value) : value), { error: rule })
    .transform((value) => (typeof value === 'number' ? numberText(value) : value));
}

/** A page size: integer from 1 to max, as a decimal string or a number; sent as the decimal string. */
export function pageLimit(max: number) {
  const rule = `must be an integer from 1 to ${max}`;
  return z
    .union([z.string(), z.number()], { error: rule })
    .refine(
      (value) => {
        const text = typeof value === 'number' ? numberText(value) : value;
        return /^[1-9]\d{0,3}$/.test(text) && Number(text) <= max;
      },
      { error: rule },
    )
    .transform((value) => (typeof value === 'number' ? numberText(value) : value));
}

// A fraction, a sign or an exponent ("1.5", "-1", "1e+21") in the text fails the digit rules.
function numberText(value: number): string {
  return String(value);
}

/** An identifier or name chosen by the exchange or the user: non-empty, no surrounding blanks. */
export function nonEmpty(what = 'a non-empty string') {
  const rule = `must be ${what}: non-empty, without leading or trailing blanks`;
  return z.string({ error: rule }).refine((value) => value.length > 0 && value.trim() === value, { error: rule });
}

export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, { error: `must be one of ${values.join(', ')}` });
}

export const PASSPHRASE_RULE = '8 to 32 characters, only English letters and digits, at least one letter and one digit';
export const passphrase = z
  .string({ error: `must be a string of ${PASSPHRASE_RULE}` })
  .refine((value) => /^[A-Za-z0-9]{8,32}$/.test(value) && /[A-Za-z]/.test(value) && /\d/.test(value), {
    error: `must be ${PASSPHRASE_RULE}`,
  });

/**
 * Length as the exchange counts it: UTF-16 code units (Java's String.length()),
 * so a character outside the BMP (an emoji) counts twice. Stricter than code
 * points, so nothing we let through is refused for its length.
 */
function charCount(value: string): number {
  return value.length;
}

export const label = z
  .string({ error: 'must be a string of 1 to 20 characters' })
  .refine((value) => charCount(value) >= 1 && charCount(value) <= 20, { error: 'must be 1 to 20 characters' });

export const subAccountName = z
  .string({ error: 'must be exactly 8 English letters' })
  .refine((value) => /^[A-Za-z]{8}$/.test(value), { error: 'must be exactly 8 English letters' });

export const username = z
  .string({ error: 'must be 1 to 20 lowercase letters a-z' })
  .refine((value) => /^[a-z]{1,20}$/.test(value), { error: 'must be 1 to 20 lowercase letters a-z' });

export const note = z
  .string({ error: 'must be a string of at most 50 characters' })
  .refine((value) => charCount(value) <= 50, { error: 'must be at most 50 characters' });

export const ipList = z
  .array(
    z
      .string({ error: 'must be an IPv4 or IPv6 address' })
      .refine((value) => isIP(value) !== 0, { error: 'must be a valid IPv4 or IPv6 address' }),
    { error: 'must be a list of IP addresses' },
  )
  .max(30, { error: 'must have at most 30 entries' });

export const PERMISSIONS = ['spot_trade', 'margin_trade', 'contract_trade', 'transfer', 'read'] as const;
export const BATCH_PERMISSIONS = ['spot_trade', 'margin_trade', 'contract_trade', 'read'] as const;
export type Permission = (typeof PERMISSIONS)[number];

export function permList(allowed: readonly [string, ...string[]]) {
  return z.array(oneOf(allowed), { error: `must be a list of permissions from ${allowed.join(', ')}` });
}

export const FUTURES_CATEGORIES = ['USDT-FUTURES', 'COIN-FUTURES', 'USDC-FUTURES'] as const;
export const ORDER_CATEGORIES = ['SPOT', 'MARGIN', ...FUTURES_CATEGORIES] as const;
export type FuturesCategory = (typeof FUTURES_CATEGORIES)[number];
export type OrderCategory = (typeof ORDER_CATEGORIES)[number];
