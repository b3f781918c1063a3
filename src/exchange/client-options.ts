import { hostname } from 'node:os';

import type { Cluster, Redis } from 'ioredis';
import { z } from 'zod';

import { ValidationError } from '../errors/validation-error.ts';
import type { Logger } from '../logging/logger.ts';
import { PER_IP_PER_MINUTE } from './endpoints.ts';
import type { RateBudgetOptions } from './rate-budget/rate-budget.ts';
import type { RateBudgetPort } from './rate-budget/rate-budget-port.ts';
import type { ShapeDriftListener } from './responses/shape-drift.ts';
import { DEFAULT_RETRY, type RetryOptions } from './retry-policy.ts';
import { type Locale, LOCALES } from './signer.ts';
import { DEFAULT_MAX_ANSWER_BYTES, DEFAULT_TIMEOUTS, type TransportTimeouts } from './transport.ts';

export interface ExchangeClientOptions {
  /** Origin of the exchange, e.g. `https://api.example.com` or the simulator's URL. */
  baseUrl: string;
  apiKey: string;
  secretKey: string;
  passphrase: string;
  /** The main account's UID: the rate budget is kept per UID. */
  uid: string;
  /**
   * Shared by every process: holds the rate budget (the sliding log, RateBudget). Give either this
   * or `budget`.
   */
  redis?: Redis | Cluster;
  /** The rate budget itself instead of the Redis one: MemoryRateBudget in unit tests. */
  budget?: RateBudgetPort;
  locale?: Locale;
  timeouts?: Partial<TransportTimeouts>;
  retry?: Partial<RetryOptions>;
  logger?: Logger;
  /**
   * The local clock: the source of ACCESS-TIMESTAMP; "now" for plans and the 3-month horizon is
   * this plus the offset the exchange's answers show (ExchangeClient.now). The simulator's in tests.
   */
  clock?: () => number;
  /** Keep-alive connections to the exchange. */
  connections?: number;
  /** The largest answer read, in bytes (default 16 MiB): a larger one is refused as malformed. */
  maxAnswerBytes?: number;
  /**
   * Told of each answer whose shape differed from the contract without harming the copy (a field
   * absent, unlisted, of another type): the runtime counts it (exchange_shape_drift). Awaited,
   * its failure only logged: the answer is read whatever it does.
   */
  onShapeDrift?: ShapeDriftListener;
  rateBudget?: RateBudgetOptions & {
    /**
     * Per-second limits that differ from the spec's table (a simulator scaled for a test), by
     * budget name: a core endpoint's or one a stream declares (src/streams/endpoints.ts).
     */
    perSecond?: Readonly<Record<string, number>>;
    /** The overall per-IP budget per minute, when it differs from the spec's 6000 (§4.4). */
    perIpPerMinute?: number;
    /** Names this machine's public IP in budget keys; machines behind one NAT should share it. */
    ipKey?: string;
  };
}

export interface ResolvedClientOptions {
  origin: string;
  credentials: { apiKey: string; secretKey: string; passphrase: string };
  uid: string;
  locale: Locale;
  timeouts: TransportTimeouts;
  retry: RetryOptions;
  clock: () => number;
  connections: number;
  maxAnswerBytes: number;
  onShapeDrift: ShapeDriftListener | undefined;
  ipKey: string;
  perSecond: Readonly<Record<string, number>>;
  perIpPerMinute: number;
  budget: RateBudgetOptions;
}

const positiveInt = z.number().int().positive();

const optionsSchema = z.object({
  baseUrl: z.string().refine(
    (value) => {
      try {
        const url = new URL(value);
        return ['http:', 'https:'].includes(url.protocol) && (url.pathname === '/' || url.pathname === '');
      } catch {
        return false;
      }
    },
    { error: 'must be an http(s) origin without a path, e.g. https://api.example.com' },
  ),
  apiKey: z.string().min(1, { error: 'must not be empty' }),
  secretKey: z.string().min(1, { error: 'must not be empty' }),
  passphrase: z.string().min(1, { error: 'must not be empty' }),
  uid: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, { error: 'must be the account UID (letters, digits, _ or -)' }),
  locale: z.enum(LOCALES, { error: `must be one of ${LOCALES.join(', ')}` }).optional(),
  timeouts: z
    .object({ connectMs: positiveInt, headersMs: positiveInt, bodyMs: positiveInt, totalMs: positiveInt })
    .partial()
    .optional(),
  retry: z
    .object({ maxAttempts: positiveInt, baseDelayMs: z.number().nonnegative(), maxDelayMs: z.number().nonnegative() })
    .partial()
    .optional(),
  connections: positiveInt.optional(),
  maxAnswerBytes: positiveInt.optional(),
  rateBudget: z
    .object({
      perSecond: z.record(z.string(), positiveInt).optional(),
      perIpPerMinute: positiveInt.optional(),
      ipKey: z.string().min(1).optional(),
      prefix: z.string().min(1).optional(),
      marginMs: z.number().nonnegative().optional(),
      inFlightMs: positiveInt.optional(),
      pollMs: positiveInt.optional(),
    })
    .optional(),
});

/** Checks the options once, at construction: a typed error names the option; secrets are never shown. */
export function resolveClientOptions(options: ExchangeClientOptions): ResolvedClientOptions {
  if ((options.redis === undefined) === (options.budget === undefined)) {
    throw new ValidationError(
      'exchange client redis',
      'give exactly one of redis and budget (the rate budget)',
      undefined,
    );
  }
  const parsed = optionsSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.join('.');
    const secret = ['secretKey', 'passphrase', 'apiKey'].includes(field);
    const value = secret ? undefined : issue.path.reduce<unknown>(step, options);
    throw new ValidationError(`exchange client ${field}`, issue.message, value);
  }
  const data = parsed.data;
  const { perSecond, perIpPerMinute, ipKey, ...budget } = data.rateBudget ?? {};
  const timeouts = { ...DEFAULT_TIMEOUTS, ...data.timeouts };
  // A request cannot stay in flight longer than the transport lets it (its deadline), so a
  // slot held by a process that died mid-request is freed after that long.
  budget.inFlightMs ??= Math.min(timeouts.totalMs, timeouts.connectMs + timeouts.headersMs + timeouts.bodyMs);
  return {
    origin: new URL(data.baseUrl).origin,
    credentials: { apiKey: data.apiKey, secretKey: data.secretKey, passphrase: data.passphrase },
    uid: data.uid,
    locale: data.locale ?? 'en-US',
    timeouts,
    retry: { ...DEFAULT_RETRY, ...data.retry },
    clock: options.clock ?? Date.now,
    connections: data.connections ?? 8,
    maxAnswerBytes: data.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES,
    onShapeDrift: options.onShapeDrift,
    ipKey: ipKey ?? hostname(),
    perSecond: perSecond ?? {},
    perIpPerMinute: perIpPerMinute ?? PER_IP_PER_MINUTE,
    budget,
  };
}

function step(value: unknown, key: PropertyKey): unknown {
  return value !== null && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined;
}
