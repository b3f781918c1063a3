import { isIP } from 'node:net';

import { CronExpressionParser } from 'cron-parser';
import { Duration, IANAZone } from 'luxon';
import { z } from 'zod';

import { REPORT_NAMES } from '../vocabulary/report-names.ts';

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

/** The shortest accepted LEDGERLINE_WEB_TOKEN: it is the only key to the accountants' page. */
export const WEB_TOKEN_MIN_LENGTH = 32;

/** TRUST_PROXY as fastify's trustProxy takes it, or undefined when it is none of the accepted forms. */
export function parseTrustProxy(value: string): boolean | number | string[] | undefined {
  const text = value.trim().toLowerCase();
  if (text === '' || text === 'false') return false;
  if (text === 'true') return true;
  if (/^\d{1,2}$/.test(text)) return Number(text);
  const entries = text.split(',').map((entry) => entry.trim());
  const valid = entries.every((entry) => {
    const [address, bits, extra] = entry.split('/');
    if (extra !== undefined || !address || isIP(address) === 0) return false;
    return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (isIP(address) === 4 ? 32 : 128));
  });
  return valid ? entries : undefined;
}

/** The longest PRICE_TOLERANCE: beyond a year a "nearest earlier price" is no longer a price of the day. */
const MAX_PRICE_TOLERANCE_MS = 366 * 24 * 3_600_000;

/**
 * PRICE_TOLERANCE in milliseconds: a whole number of ms, or an ISO-8601 duration of weeks, days and
 * time (P1D, PT36H, P1DT12H; a day is 24 h, no months or years, whose length varies); undefined when
 * it is neither or is beyond MAX_PRICE_TOLERANCE_MS.
 */
export function parsePriceTolerance(value: string): number | undefined {
  const text = value.trim().toUpperCase();
  let ms: number;
  if (/^\d{1,12}$/.test(text)) ms = Number(text);
  else {
    // Years and months (Y, or M before the T) have no fixed length; minutes (M after the T) do.
    const datePart = text.split('T')[0]!;
    const duration = Duration.fromISO(text);
    if (!text.startsWith('P') || /[YM]/.test(datePart) || !duration.isValid) return undefined;
    ms = duration.toMillis();
  }
  return Number.isSafeInteger(ms) && ms >= 0 && ms <= MAX_PRICE_TOLERANCE_MS ? ms : undefined;
}

const commaList = (check?: { values: readonly string[]; what: string }) =>
  z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== ''),
    )
    .superRefine((items, ctx) => {
      const bad = check ? items.filter((item) => !check.values.includes(item)) : [];
      if (bad.length > 0) {
        ctx.addIssue({
          code: 'custom',
          message: `unknown ${check!.what} ${bad.join(', ')}; one of ${check!.values.join(', ')}`,
        });
      }
    });

const hours = (fallback: number) =>
  z.coerce
    .number({ message: 'must be a whole number of hours' })
    .int('must be a whole number of hours')
    .min(0, 'must not be negative')
    .max(24 * 90, 'must be at most 2160 (90 days)')
    .default(fallback);

/** A cron pattern (5 fields, or 6 with seconds), read in UTC. */
const cron = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .refine(
      (value) => {
        try {
          CronExpressionParser.parse(value, { tz: 'UTC' });
          return value.trim().split(/\s+/).length >= 5;
        } catch {
          return false;
        }
      },
      { message: 'must be a cron pattern such as "0 2 * * *" (minute hour day month weekday, UTC)' },
    );

/** A comma-separated list whose every item matches `pattern`. */
const listOf = (fallback: string, pattern: RegExp, rule: string) =>
  z
    .string()
    .default(fallback)
    .transform((value) =>
      value
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== ''),
    )
    .refine((items) => items.every((item) => pattern.test(item)), { message: rule });

export const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  DATABASE_URL: urlWithProtocols(['postgresql:', 'postgres:'], true).default(
    'postgresql://postgres@127.0.0.1:5432/ledgerline',
  ),
  REDIS_URL: urlWithProtocols(['redis:', 'rediss:']).default('redis://127.0.0.1:6379'),
  // A Redis Cluster's seed nodes (host:port,host:port); when set, REDIS_URL is not used and
  // QUEUE_PREFIX must be hash-tagged ({ledgerline}) so each budget's and queue's keys share a slot.
  REDIS_CLUSTER_NODES: listOf(
    '',
    /^[A-Za-z0-9._-]+:([1-9]\d{0,3}|[1-5]\d{4}|6[0-4]\d{3}|65[0-4]\d{2}|655[0-2]\d|6553[0-5])$/,
    'must be comma-separated host:port pairs such as 10.0.0.1:7000,10.0.0.2:7000',
  ),
  LEDGERLINE_MASTER_KEY: z.string().optional(),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  EXPORT_DIR: z.string().min(1, 'must not be empty').default('./exports'),
  // The Chromium that prints the tax-year pack's PDF (src/export/pack/print-pdf.ts): Debian's package by default.
  CHROMIUM_PATH: z.string().min(1, 'must not be empty').default('/usr/bin/chromium'),
  // Braces make the whole prefix a Redis Cluster hash tag ({ledgerline}): every queue and
  // rate-budget key of the installation then shares one slot, as BullMQ and the budget's
  // multi-key scripts need on a cluster (docs/scaling.md).
  QUEUE_PREFIX: z
    .string()
    .regex(
      /^(?:[A-Za-z0-9_-]{1,40}|\{[A-Za-z0-9_-]{1,38}\})$/,
      'must be 1-40 characters of letters, digits, _ and -, or such a name in braces ({ledgerline}) for a Redis Cluster',
    )
    .default('ledgerline'),
  // The database `npm run demo` creates and fills, on DATABASE_URL's server: two demos sharing a
  // server (or one beside a real installation) each name their own. Its queues are QUEUE_PREFIX-demo
  // for the default name, QUEUE_PREFIX-<name> for another, so they never share jobs either.
  DEMO_DATABASE: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be 1-63 lowercase letters, digits and _, not starting with a digit')
    .default('ledgerline_demo'),
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
  WORKER_MAX_STALLED_COUNT: z.coerce
    .number({ message: 'must be a whole number' })
    .int('must be a whole number')
    .min(0, 'must be at least 0')
    .max(100, 'must be at most 100')
    .default(5),
  // A worker re-registers lost schedules and re-enqueues windows left without a job this often:
  // at most a minute, so a Redis that lost its data is noticed within one.
  WORKER_HEAL_INTERVAL_MS: z.coerce
    .number({ message: 'must be a whole number of milliseconds' })
    .int('must be a whole number of milliseconds')
    .min(100, 'must be at least 100')
    .max(60_000, 'must be at most 60000')
    .default(30_000),
  // A backfill or sync with no worker to take its jobs waits this long for one, then stops with one
  // line saying how to start one (its windows stay queued), instead of waiting forever.
  NO_WORKER_WAIT_MS: z.coerce
    .number({ message: 'must be a whole number of milliseconds' })
    .int('must be a whole number of milliseconds')
    .min(1_000, 'must be at least 1000')
    .max(3_600_000, 'must be at most 3600000')
    .default(60_000),
  SYNC_LOOKBACK_HOURS: hours(24),
  SYNC_TRANSFER_LOOKBACK_HOURS: hours(48),
  SYNC_FIRST_DAYS: z.coerce
    .number({ message: 'must be a whole number of days' })
    .int('must be a whole number of days')
    .min(1, 'must be at least 1')
    .max(3650, 'must be at most 3650')
    .default(90),
  // A page shorter than the limit ends a window only when a full page of that endpoint was stored
  // within this many days (src/streams/kit/page-fill.ts); 0: every window asks its empty page.
  PAGE_FILL_EVIDENCE_DAYS: z.coerce
    .number({ message: 'must be a whole number of days' })
    .int('must be a whole number of days')
    .min(0, 'must be at least 0')
    .max(365, 'must be at most 365')
    .default(30),
  // One window in this many that the evidence would let end on a short page is read to its empty
  // page anyway, at random: the canary for a cap that begins while the evidence is fresh. 0: none.
  PAGE_FILL_CANARY_EVERY: z.coerce
    .number({ message: 'must be a whole number' })
    .int('must be a whole number')
    .min(0, 'must be at least 0')
    .max(10_000, 'must be at most 10000')
    .default(10),
  // The nightly reconciliation checks the whole history (reconcile --full) when the last full
  // check is older than this; in between it reads only what followed the verified chains. 0: never.
  RECONCILE_FULL_EVERY_DAYS: z.coerce
    .number({ message: 'must be a whole number of days' })
    .int('must be a whole number of days')
    .min(0, 'must be at least 0')
    .max(3650, 'must be at most 3650')
    .default(30),
  // A window whose sync read started at most this many hours before the reconciliation is
  // re-counted from that read's marks, not asked again (src/reconcile/read-marks.ts); 0: every
  // window is asked. At most a day: the next night's sync lookback reads the newest windows again.
  RECONCILE_FRESH_READ_HOURS: z.coerce
    .number({ message: 'must be a whole number of hours' })
    .int('must be a whole number of hours')
    .min(0, 'must not be negative')
    .max(24, 'must be at most 24')
    .default(6),
  // Reconciliations one worker process keeps in flight while they wait for their accounts' rate
  // budgets, out of their worker slots (jobs/reconcile/detached-runs.ts).
  RECONCILE_MAX_IN_FLIGHT: z.coerce
    .number({ message: 'must be a whole number' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(1000, 'must be at most 1000')
    .default(200),
  // How long a worker's claim on a reconciliation it runs lasts without renewal (renewed every third
  // of it): a worker that died or stalled has its reconciliations taken over after this.
  RECONCILE_CLAIM_TTL_MS: z.coerce
    .number({ message: 'must be a whole number of milliseconds' })
    .int('must be a whole number of milliseconds')
    .min(1000, 'must be at least 1000')
    .max(600_000, 'must be at most 600000')
    .default(30_000),
  NIGHTLY_CRON: cron('0 2 * * *'),
  MARKET_DATA_CRON: cron('15 * * * *'),
  OI_LIMIT_CRON: cron('30 */6 * * *'),
  NET_FLOW_SYMBOLS: listOf('BTCUSDT,ETHUSDT', /^[A-Z0-9]{2,30}$/, 'must be comma-separated symbols such as BTCUSDT'),
  OI_LIMIT_MARKETS: listOf(
    'BTCUSDT:USDT-FUTURES,ETHUSDT:USDT-FUTURES',
    /^[A-Z0-9]{2,30}:(USDT|COIN|USDC)-FUTURES$/,
    'must be comma-separated SYMBOL:CATEGORY pairs such as BTCUSDT:USDT-FUTURES',
  ),
  EXCHANGE_TIMEOUT_MS: z.coerce
    .number({ message: 'must be a whole number of milliseconds' })
    .int('must be a whole number of milliseconds')
    .min(500, 'must be at least 500')
    .max(120_000, 'must be at most 120000')
    .default(15_000),
  // The whole request (connect + headers + body): EXCHANGE_TIMEOUT_MS bounds a silence, this an
  // answer trickled slowly; at least EXCHANGE_TIMEOUT_MS (checked in loadConfig).
  EXCHANGE_DEADLINE_MS: z.coerce
    .number({ message: 'must be a whole number of milliseconds' })
    .int('must be a whole number of milliseconds')
    .min(500, 'must be at least 500')
    .max(600_000, 'must be at most 600000')
    .default(30_000),
  // How long a window's requests may fail with network errors (timeouts, trickles) before the next
  // such failure is final: the window then fails within src/exchange/failure-bound.ts's bound.
  EXCHANGE_FAILURE_BUDGET_MS: z.coerce
    .number({ message: 'must be a whole number of milliseconds' })
    .int('must be a whole number of milliseconds')
    .min(0, 'must be at least 0')
    .max(86_400_000, 'must be at most 86400000 (a day)')
    .default(180_000),
  // The largest answer the client reads: one larger is refused as malformed, unread past the limit.
  EXCHANGE_MAX_ANSWER_BYTES: z.coerce
    .number({ message: 'must be a whole number of bytes' })
    .int('must be a whole number of bytes')
    .min(1_048_576, 'must be at least 1048576 (1 MiB)')
    .max(268_435_456, 'must be at most 268435456 (256 MiB)')
    .default(16_777_216),
  EXCHANGE_RATE_FACTOR: z.coerce
    .number({ message: 'must be a number' })
    .positive('must be greater than 0')
    .max(1000, 'must be at most 1000')
    .default(1),
  // The accountants' page (`ledgerline web`). The token is checked for presence when the page starts.
  LEDGERLINE_WEB_TOKEN: z
    .string()
    .optional()
    .refine((value) => value === undefined || value === '' || value.length >= WEB_TOKEN_MIN_LENGTH, {
      message: `must be at least ${WEB_TOKEN_MIN_LENGTH} characters (openssl rand -hex 32)`,
    }),
  WEB_HOST: z.string().min(1, 'must not be empty').default('127.0.0.1'),
  WEB_PORT: z.coerce.number().int('must be an integer').min(0).max(65_535, 'must be a port (0-65535)').default(8080),
  // The operators' token: bull-board with its actions (the accountants' token only sees the queues).
  LEDGERLINE_ADMIN_TOKEN: z
    .string()
    .optional()
    .refine((value) => value === undefined || value === '' || value.length >= WEB_TOKEN_MIN_LENGTH, {
      message: `must be at least ${WEB_TOKEN_MIN_LENGTH} characters (openssl rand -hex 32)`,
    }),
  // Which hops may tell the page the client's address (X-Forwarded-For) and https (X-Forwarded-Proto).
  TRUST_PROXY: z
    .string()
    .default('false')
    .refine((value) => parseTrustProxy(value) !== undefined, {
      message: 'must be false, true, a number of hops, or comma-separated proxy addresses/CIDRs (10.0.0.1,10.1.0.0/16)',
    }),
  // The worker's /metrics, /livez and /readyz. Loopback by default: the metrics name accounts.
  METRICS_HOST: z.string().min(1, 'must not be empty').default('127.0.0.1'),
  METRICS_PORT: z.coerce
    .number()
    .int('must be an integer')
    .min(0)
    .max(65_535, 'must be a port (0-65535)')
    .default(9464),
  // Where alerts are POSTed (Slack-compatible JSON). A secret: its path is the webhook's key.
  ALERT_WEBHOOK_URL: z.union([z.literal(''), urlWithProtocols(['https:', 'http:'])]).optional(),
  // The heartbeat alerts when no nightly sync succeeded for this long.
  ALERT_NO_SUCCESS_HOURS: z.coerce
    .number()
    .positive('must be more than 0')
    .max(24 * 30, 'must be at most 720')
    .default(26),
  // Exports written for the previous month after the nightly sync: which reports, in which zone, for which accounts.
  MONTHLY_EXPORT_REPORTS: commaList({ values: REPORT_NAMES, what: 'report' }),
  MONTHLY_EXPORT_TZ: z
    .string()
    .default('UTC')
    .refine((value) => IANAZone.isValidZone(value), {
      message: 'must be an IANA time zone name such as Europe/Berlin',
    }),
  MONTHLY_EXPORT_ACCOUNTS: commaList(),
  // Prices and valuation (docs/reports.md, "Prices and valuation"): the currency values are stated
  // in, and how old the nearest earlier price may be (36 h: a daily close is at most a day old when
  // the next is due, plus half a day for a close published late or a day missing from a source).
  VALUATION_CURRENCY: z
    .string()
    .default('USDT')
    .transform((value) => value.trim().toUpperCase())
    .refine((value) => /^[A-Z0-9]{1,32}$/.test(value), {
      message: 'must be a coin or currency code such as USDT, USD or EUR',
    }),
  PRICE_TOLERANCE: z
    .string()
    .default('PT36H')
    .refine((value) => parsePriceTolerance(value) !== undefined, {
      message:
        'must be milliseconds or an ISO-8601 duration in weeks, days and time such as PT36H or P1D (at most 366 days)',
    }),
  // Coins moved to a strategy, Earn or a lock and not back after this many days are flagged for the
  // accountant's decision (docs/reports.md, "Coins away"; coins-away.ts says why 90).
  COINS_AWAY_DAYS: z.coerce.number().int().min(1).max(3660).default(90),
});

export type RawEnv = z.infer<typeof envSchema>;
