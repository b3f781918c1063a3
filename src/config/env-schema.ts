import { z } from 'zod';

/**
 * Every environment variable ledgerline reads, with its rule and local
 * default. Later features add their variables here, never elsewhere.
 */

// Only for development and tests: production refuses to start without a real key.
export const DEVELOPMENT_MASTER_KEY = '6c65646765726c696e652d646576656c6f706d656e742d6b65792d3030303030';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

function urlWithProtocols(protocols: string[], needsPath = false) {
  return z.string().superRefine((value, ctx) => {
    let url: URL | undefined;
    try {
      url = new URL(value);
    } catch {
      url = undefined;
    }
    if (!url || !protocols.includes(url.protocol) || url.hostname.length === 0) {
      ctx.addIssue({
        code: 'custom',
        message: `must be a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}`,
      });
    } else if (needsPath && url.pathname.length <= 1) {
      ctx.addIssue({ code: 'custom', message: 'must name a database (postgresql://user@host:port/database)' });
    }
  });
}

export const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  DATABASE_URL: urlWithProtocols(['postgresql:', 'postgres:'], true).default(
    'postgresql://postgres@127.0.0.1:5432/ledgerline',
  ),
  REDIS_URL: urlWithProtocols(['redis:', 'rediss:']).default('redis://127.0.0.1:6379'),
  LEDGERLINE_MASTER_KEY: z.string().optional(),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  EXPORT_DIR: z.string().min(1, 'must not be empty').default('./exports'),
  QUEUE_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,40}$/, 'must be 1-40 characters of letters, digits, _ and -')
    .default('ledgerline'),
  WORKER_CONCURRENCY: z.coerce
    .number({ message: 'must be a whole number' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(64, 'must be at most 64')
    .default(4),
  WORKER_LOCK_DURATION_MS: z.coerce
    .number({ message: 'must be a whole number of milliseconds' })
    .int('must be a whole number of milliseconds')
    .min(1000, 'must be at least 1000')
    .max(600_000, 'must be at most 600000')
    .default(30_000),
  EXCHANGE_TIMEOUT_MS: z.coerce
    .number({ message: 'must be a whole number of milliseconds' })
    .int('must be a whole number of milliseconds')
    .min(500, 'must be at least 500')
    .max(120_000, 'must be at most 120000')
    .default(15_000),
  EXCHANGE_RATE_FACTOR: z.coerce
    .number({ message: 'must be a number' })
    .positive('must be greater than 0')
    .max(1000, 'must be at most 1000')
    .default(1),
});

export type RawEnv = z.infer<typeof envSchema>;
