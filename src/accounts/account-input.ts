import { z } from 'zod';

import { ValidationError } from '../errors/index.ts';

/** What an operator gives to register an exchange account. */
export const accountInputSchema = z.object({
  name: z
    .string()
    .regex(
      /^[a-z0-9][a-z0-9_-]{0,62}$/,
      'must be 1-63 characters of a-z, 0-9, _ and -, starting with a letter or digit',
    ),
  baseUrl: z.string().refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'http:' || url.protocol === 'https:') && url.pathname === '/' && !url.search;
    } catch {
      return false;
    }
  }, 'must be an http(s) URL with no path, e.g. https://api.exchange.example'),
  apiKey: z.string().min(1, 'must not be empty').max(200, 'must be at most 200 characters'),
  secretKey: z.string().min(1, 'must not be empty').max(500, 'must be at most 500 characters'),
  passphrase: z.string().min(1, 'must not be empty').max(200, 'must be at most 200 characters'),
  uid: z.string().regex(/^\d{1,30}$/, 'must be the numeric user id of the main account'),
  isBrokerParent: z.boolean().default(false),
  isUnifiedAccount: z.boolean().default(false),
});

export type AccountInput = z.input<typeof accountInputSchema>;
export type ValidAccountInput = z.output<typeof accountInputSchema>;

/** Validates account input; the first problem becomes a ValidationError naming the field (never echoing secrets). */
export function parseAccountInput(input: AccountInput): ValidAccountInput {
  const parsed = accountInputSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = issue.path.join('.') || 'account';
  const secret = field === 'secretKey' || field === 'passphrase';
  const value = secret ? undefined : (input as Record<string, unknown>)[field];
  throw new ValidationError(field, issue.message, value);
}
