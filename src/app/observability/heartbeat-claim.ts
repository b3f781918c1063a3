import { readFileSync } from 'node:fs';

import type { Cluster, Redis } from 'ioredis';

import { runScript } from '../../exchange/rate-budget/run-script.ts';

/**
 * Decides which of the installation's workers sends a due heartbeat alert: true for exactly one
 * caller per period, false for the others (which then wait a full period, as if they had sent it).
 */
export type AlertClaim = (now: number, periodMs: number) => Promise<boolean>;

const CLAIM_SCRIPT = readFileSync(new URL('./heartbeat-claim.lua', import.meta.url), 'utf8');

/**
 * The claim kept in Redis under the installation's queue prefix, so that every worker of one
 * installation shares it and another installation on the same Redis does not. Times are the
 * callers' clocks (not Redis' TTLs), so the decision is the same under a test's clock.
 */
export function redisAlertClaim(redis: Redis | Cluster, prefix: string): AlertClaim {
  const key = `${prefix}:alerts:no-recent-success`;
  return async (now, periodMs) => (await runScript(redis, CLAIM_SCRIPT, [key], [now, periodMs])) === 1;
}
