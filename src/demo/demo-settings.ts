import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';

import { type Config, DEMO_SETTINGS_FILE } from '../config/config.ts';
import { withDatabase } from '../db/ensure-database.ts';

/** The default DEMO_DATABASE: its queues are QUEUE_PREFIX-demo (another name's, QUEUE_PREFIX-<name>). */
const DEFAULT_DEMO_DATABASE = 'ledgerline_demo';

/**
 * The demo's configuration: its own database (DEMO_DATABASE on DATABASE_URL's server) and
 * queue prefix, so its simulator account, rows and jobs never mix with a real installation's
 * (whose worker would otherwise take its jobs), nor with another demo's of another name; and a
 * sign-in token for the page, the installation's or one of its own (kept across runs).
 */
export function demoConfig(config: Config): Config {
  const name = config.demoDatabase;
  return {
    ...config,
    databaseUrl: withDatabase(config.databaseUrl, name),
    queuePrefix: `${config.queuePrefix}-${name === DEFAULT_DEMO_DATABASE ? 'demo' : name}`.slice(0, 40),
    web: { ...config.web, token: config.web.token ?? previousToken() ?? randomBytes(32).toString('hex') },
  };
}

/**
 * The exact environment that points the CLI at what the demo built: its database, queues, the
 * Redis and export directory it used, the page's token (and the rate factor, when not 1).
 */
export function demoEnvironment(installation: Config, demo: Config): Record<string, string> {
  const environment: Record<string, string> = {
    DATABASE_URL: demo.databaseUrl,
    QUEUE_PREFIX: demo.queuePrefix,
    // Which database is the demo's: `status` in a new shell says "no schedules in the demo" by it,
    // not that Redis lost the nightly schedule (a DEMO_DATABASE of another name, as on a shared server).
    DEMO_DATABASE: installation.demoDatabase,
  };
  if (installation.redisClusterNodes.length > 0) {
    environment.REDIS_CLUSTER_NODES = installation.redisClusterNodes.map((n) => `${n.host}:${n.port}`).join(',');
  } else environment.REDIS_URL = installation.redisUrl;
  environment.EXPORT_DIR = demo.exportDir;
  environment.LEDGERLINE_WEB_TOKEN = demo.web.token!;
  if (installation.exchangeRateFactor !== 1) environment.EXCHANGE_RATE_FACTOR = String(installation.exchangeRateFactor);
  return environment;
}

/**
 * Writes the environment to `.ledgerline-demo.env` in the working directory (readable by its
 * owner only: it holds the page's token and DATABASE_URL), whole or not at all. Returns its path
 * as a person would type it.
 */
export function writeDemoSettings(environment: Record<string, string>): string {
  const lines = [
    '# Written by `npm run demo`: the settings that explore what it built. ledgerline reads this file',
    '# outside production and tests; a variable set in the environment wins over it, and it wins',
    '# over .env. Delete it to leave the demo.',
    ...Object.entries(environment).map(([name, value]) => `${name}=${value}`),
    '',
  ];
  const file = path.resolve(DEMO_SETTINGS_FILE);
  writeFileSync(`${file}.tmp`, lines.join('\n'), { mode: 0o600 });
  chmodSync(`${file}.tmp`, 0o600);
  renameSync(`${file}.tmp`, file);
  return path.relative(process.cwd(), file);
}

/** The token an earlier demo wrote, so a page left open keeps its sign-in. */
function previousToken(): string | undefined {
  if (!existsSync(DEMO_SETTINGS_FILE)) return undefined;
  const token = parseEnv(readFileSync(DEMO_SETTINGS_FILE, 'utf8')).LEDGERLINE_WEB_TOKEN;
  return token && token.length >= 32 ? token : undefined;
}
