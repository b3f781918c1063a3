import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';

import { ConfigError } from '../errors/index.ts';
import type { ReportName } from '../vocabulary/report-names.ts';
import { envSchema, parsePriceTolerance, parseTrustProxy } from './env-schema.ts';
import { parseMasterKey } from './master-key.ts';

export interface RedisNode {
  readonly host: string;
  readonly port: number;
}

/**
 * Whether every key under the prefix hashes by one tag: the first `{...}` with
 * something inside (Redis Cluster's rule). BullMQ's scripts and the rate
 * budget's touch several keys at once, which a cluster allows only in one slot.
 */
export function hasHashTag(prefix: string): boolean {
  const open = prefix.indexOf('{');
  const close = open < 0 ? -1 : prefix.indexOf('}', open + 1);
  return close > open + 1;
}

export interface Config {
  readonly env: 'development' | 'test' | 'production';
  readonly databaseUrl: string;
  readonly redisUrl: string;
  /** A Redis Cluster's seed nodes (REDIS_CLUSTER_NODES); empty: the single Redis at redisUrl. */
  readonly redisClusterNodes: readonly RedisNode[];
  /** 32-byte key of the secret box. Never log it. */
  readonly masterKey: Buffer;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  readonly exportDir: string;
  /** CHROMIUM_PATH: the Chromium that prints the tax-year pack's PDF. */
  readonly chromiumPath: string;
  /** BullMQ key prefix: separate installations (or tests) sharing one Redis use different ones. */
  readonly queuePrefix: string;
  /** The database `npm run demo` creates and fills on DATABASE_URL's server (DEMO_DATABASE). */
  readonly demoDatabase: string;
  readonly workerConcurrency: number;
  /** A killed worker's job is taken over by another worker after this long. */
  readonly workerLockDurationMs: number;
  /** How many times a job may lose its worker (killed, crashed) and be taken over before it fails. */
  readonly workerMaxStalledCount: number;
  /** How often a worker restores schedules and jobs that Redis lost (a flush, a restart without persistence). */
  readonly workerHealIntervalMs: number;
  /** How long a backfill or sync with no worker waits for one before it stops (NO_WORKER_WAIT_MS). */
  readonly noWorkerWaitMs: number;
  /**
   * Multiplies the spec's per-second budgets: for an account granted a higher
   * limit tier, or a simulator scaled the same way for tests and benchmarks.
   */
  readonly exchangeRateFactor: number;
  /** How long the exchange may take to answer (headers, then body) before a request counts as failed. */
  readonly exchangeTimeoutMs: number;
  /** How long one request may take in all (connect, headers and body) before it counts as failed. */
  readonly exchangeDeadlineMs: number;
  /** How long a window's requests may fail with network errors before the next one is final. */
  readonly exchangeFailureBudgetMs: number;
  /** The largest answer read from the exchange, in bytes: a larger one is refused as malformed. */
  readonly exchangeMaxAnswerBytes: number;
  /** The nightly reconciliation runs a full check when the last is older than this many days (0: never). */
  readonly reconcileFullEveryDays: number;
  /** A window read at most this many hours ago is re-counted from its read's marks (0: always asked). */
  readonly reconcileFreshReadHours: number;
  /** Reconciliations one process keeps in flight, waiting for their budgets out of their slots. */
  readonly reconcileMaxInFlight: number;
  /** A worker that died or stalled has its reconciliations taken over after this (RECONCILE_CLAIM_TTL_MS). */
  readonly reconcileClaimTtlMs: number;
  readonly sync: {
    /** How far back before the end of covered data each incremental sync re-reads. */
    readonly lookbackMs: number;
    /** The same for records that change after the fact (deposits/withdrawals settle). */
    readonly settlingLookbackMs: number;
    /** Where an account's first incremental sync starts, in days before now. */
    readonly firstDays: number;
    /** A short page ends a window only after a full page of its endpoint within this long (0: never). */
    readonly pageFillEvidenceMs: number;
    /** One window in this many that could end on a short page is read to its empty page (0: none). */
    readonly pageFillCanaryEvery: number;
  };
  readonly schedules: { readonly nightly: string; readonly marketData: string; readonly oiLimits: string };
  readonly marketData: {
    readonly netFlowSymbols: readonly string[];
    readonly oiLimitMarkets: readonly { symbol: string; category: 'USDT-FUTURES' | 'COIN-FUTURES' | 'USDC-FUTURES' }[];
  };
  /**
   * The accountants' page: the accountants' and the operators' sign-in tokens (never log them),
   * host, port, and which proxies may name the client's address.
   */
  readonly web: {
    readonly token: string | undefined;
    readonly adminToken: string | undefined;
    readonly host: string;
    readonly port: number;
    readonly trustProxy: boolean | number | readonly string[];
  };
  /** Where the worker serves /metrics and its probes. */
  readonly metrics: { readonly host: string; readonly port: number };
  /** The alert webhook (a secret: never log it) and the heartbeat's limit. */
  readonly alerts: { readonly webhookUrl: string | undefined; readonly noSuccessAfterMs: number };
  /** Prices: the currency values are stated in and how old a price may be (PRICE_TOLERANCE, ms). */
  readonly valuation: {
    readonly currency: string;
    readonly priceToleranceMs: number;
    /** Coins away longer than this are flagged (COINS_AWAY_DAYS; docs/reports.md, "Coins away"). */
    readonly coinsAwayDays: number;
  };
  /** Reports written for the previous month after the nightly sync; accounts [] = every account. */
  readonly monthlyExports: {
    readonly reports: readonly ReportName[];
    readonly tz: string;
    readonly accounts: readonly string[];
  };
}

/**
 * Validates an environment into a Config. The only place that reads
 * environment variables: everything else receives the Config.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(issue.path.join('.') || 'environment', issue.message);
  }
  const raw = parsed.data;
  if (raw.REDIS_CLUSTER_NODES.length > 0 && !hasHashTag(raw.QUEUE_PREFIX)) {
    throw new ConfigError(
      'QUEUE_PREFIX',
      `must be hash-tagged in braces, e.g. {${raw.QUEUE_PREFIX}}, when REDIS_CLUSTER_NODES is set ` +
        "(a queue's and a rate budget's keys must share one cluster slot)",
    );
  }
  if (raw.EXCHANGE_DEADLINE_MS < raw.EXCHANGE_TIMEOUT_MS) {
    throw new ConfigError(
      'EXCHANGE_DEADLINE_MS',
      `must be at least EXCHANGE_TIMEOUT_MS (${raw.EXCHANGE_TIMEOUT_MS}): the deadline is the whole request`,
    );
  }
  const production = raw.NODE_ENV === 'production';
  return Object.freeze({
    env: raw.NODE_ENV,
    databaseUrl: raw.DATABASE_URL,
    redisUrl: raw.REDIS_URL,
    redisClusterNodes: Object.freeze(
      raw.REDIS_CLUSTER_NODES.map((item) => {
        const at = item.lastIndexOf(':');
        return Object.freeze({ host: item.slice(0, at), port: Number(item.slice(at + 1)) });
      }),
    ),
    masterKey: parseMasterKey(raw.LEDGERLINE_MASTER_KEY, production),
    logLevel: raw.LOG_LEVEL,
    exportDir: path.resolve(raw.EXPORT_DIR),
    chromiumPath: raw.CHROMIUM_PATH,
    queuePrefix: raw.QUEUE_PREFIX,
    demoDatabase: raw.DEMO_DATABASE,
    workerConcurrency: raw.WORKER_CONCURRENCY,
    workerLockDurationMs: raw.WORKER_LOCK_DURATION_MS,
    workerMaxStalledCount: raw.WORKER_MAX_STALLED_COUNT,
    workerHealIntervalMs: raw.WORKER_HEAL_INTERVAL_MS,
    noWorkerWaitMs: raw.NO_WORKER_WAIT_MS,
    exchangeRateFactor: raw.EXCHANGE_RATE_FACTOR,
    exchangeTimeoutMs: raw.EXCHANGE_TIMEOUT_MS,
    exchangeDeadlineMs: raw.EXCHANGE_DEADLINE_MS,
    exchangeFailureBudgetMs: raw.EXCHANGE_FAILURE_BUDGET_MS,
    exchangeMaxAnswerBytes: raw.EXCHANGE_MAX_ANSWER_BYTES,
    reconcileFullEveryDays: raw.RECONCILE_FULL_EVERY_DAYS,
    reconcileFreshReadHours: raw.RECONCILE_FRESH_READ_HOURS,
    reconcileMaxInFlight: raw.RECONCILE_MAX_IN_FLIGHT,
    reconcileClaimTtlMs: raw.RECONCILE_CLAIM_TTL_MS,
    sync: Object.freeze({
      lookbackMs: raw.SYNC_LOOKBACK_HOURS * HOUR,
      settlingLookbackMs: raw.SYNC_TRANSFER_LOOKBACK_HOURS * HOUR,
      firstDays: raw.SYNC_FIRST_DAYS,
      pageFillEvidenceMs: raw.PAGE_FILL_EVIDENCE_DAYS * 24 * HOUR,
      pageFillCanaryEvery: raw.PAGE_FILL_CANARY_EVERY,
    }),
    schedules: Object.freeze({
      nightly: raw.NIGHTLY_CRON,
      marketData: raw.MARKET_DATA_CRON,
      oiLimits: raw.OI_LIMIT_CRON,
    }),
    marketData: Object.freeze({
      netFlowSymbols: Object.freeze([...raw.NET_FLOW_SYMBOLS]),
      oiLimitMarkets: Object.freeze(
        raw.OI_LIMIT_MARKETS.map((item) => {
          const [symbol, category] = item.split(':') as [string, 'USDT-FUTURES' | 'COIN-FUTURES' | 'USDC-FUTURES'];
          return Object.freeze({ symbol, category });
        }),
      ),
    }),
    web: Object.freeze({
      token: raw.LEDGERLINE_WEB_TOKEN || undefined,
      adminToken: raw.LEDGERLINE_ADMIN_TOKEN || undefined,
      host: raw.WEB_HOST,
      port: raw.WEB_PORT,
      trustProxy: parseTrustProxy(raw.TRUST_PROXY)!,
    }),
    metrics: Object.freeze({ host: raw.METRICS_HOST, port: raw.METRICS_PORT }),
    alerts: Object.freeze({
      webhookUrl: raw.ALERT_WEBHOOK_URL || undefined,
      noSuccessAfterMs: raw.ALERT_NO_SUCCESS_HOURS * HOUR,
    }),
    valuation: Object.freeze({
      currency: raw.VALUATION_CURRENCY,
      priceToleranceMs: parsePriceTolerance(raw.PRICE_TOLERANCE)!,
      coinsAwayDays: raw.COINS_AWAY_DAYS,
    }),
    monthlyExports: Object.freeze({
      reports: raw.MONTHLY_EXPORT_REPORTS as ReportName[],
      tz: raw.MONTHLY_EXPORT_TZ,
      accounts: raw.MONTHLY_EXPORT_ACCOUNTS,
    }),
  });
}

const HOUR = 3_600_000;

let cached: Config | undefined;
let demoApplied: string | undefined;

/** What `npm run demo` writes for the CLI to read: the environment that explores what it built. */
export const DEMO_SETTINGS_FILE = '.ledgerline-demo.env';

/**
 * The process's configuration, validated on first use. Where a variable comes from, first
 * wins: the environment; then, outside production and tests, the demo's settings file
 * (`.ledgerline-demo.env`, written by `npm run demo` in the working directory), so that after the
 * demo every command works on what it built; then a `.env` file in the working directory.
 * `demoSettings: false` skips the demo's file (the demo itself, which writes it).
 */
export function getConfig(options: { demoSettings?: boolean } = {}): Config {
  if (!cached) {
    const layered = layeredEnvironment(process.env, {
      dotEnv: readEnvFile('.env'),
      demo: options.demoSettings === false ? {} : readEnvFile(DEMO_SETTINGS_FILE),
    });
    for (const name of layered.filled) process.env[name] = layered.env[name];
    demoApplied = layered.fromDemo.length > 0 ? layered.fromDemo.join(', ') : undefined;
    cached = loadConfig();
  }
  return cached;
}

/**
 * The environment a process runs with, its files filled in: a variable set in `env` wins; then
 * the demo's settings, unless NODE_ENV (from either place) is production or test; then `.env`.
 * The demo's settings apply only to the demo's own database: when DATABASE_URL is configured
 * elsewhere (the environment, else `.env`) and names another database, the installation is a
 * separate one and none of the demo's variables (its EXPORT_DIR, token, REDIS_URL...) reach it.
 * Returns the merged environment, the names it filled in and those the demo's file gave. Pure.
 */
export function layeredEnvironment(
  env: NodeJS.ProcessEnv,
  files: { dotEnv: Record<string, string>; demo: Record<string, string> },
): { env: NodeJS.ProcessEnv; filled: string[]; fromDemo: string[] } {
  const nodeEnv = env.NODE_ENV ?? files.dotEnv.NODE_ENV ?? 'development';
  const configured = env.DATABASE_URL ?? files.dotEnv.DATABASE_URL;
  const demoApplies = nodeEnv === 'development' && (configured === undefined || configured === files.demo.DATABASE_URL);
  const demo = demoApplies ? files.demo : {};
  const merged: NodeJS.ProcessEnv = { ...env };
  const filled: string[] = [];
  const fromDemo: string[] = [];
  for (const [name, value] of Object.entries({ ...files.dotEnv, ...demo })) {
    if (env[name] !== undefined) continue;
    merged[name] = value;
    filled.push(name);
    if (Object.hasOwn(demo, name)) fromDemo.push(name);
  }
  return { env: merged, filled, fromDemo };
}

/** The variables the demo's settings file supplied to this process, if it supplied any. */
export function demoSettingsApplied(): string | undefined {
  return demoApplied;
}

/** A dotenv file's variables; none when it does not exist. */
function readEnvFile(file: string): Record<string, string> {
  if (!existsSync(file)) return {};
  return Object.fromEntries(
    Object.entries(parseEnv(readFileSync(file, 'utf8'))).filter((e): e is [string, string] => e[1] !== undefined),
  );
}
