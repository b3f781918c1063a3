import type { Cluster, Redis } from 'ioredis';
import type pg from 'pg';

/** How long a probe waits for each store: a hung store is as unready as a refusing one. */
const PROBE_TIMEOUT_MS = 2_000;

export interface ReadinessDeps {
  pool: pg.Pool;
  redis: Redis | Cluster;
}

export interface Readiness {
  ready: boolean;
  postgres: boolean;
  redis: boolean;
}

function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

async function answers(check: () => Promise<unknown>): Promise<boolean> {
  try {
    await within(check(), PROBE_TIMEOUT_MS);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether Postgres and Redis answer now. Redis is asked only when its
 * connection is up: a command sent while it reconnects waits in ioredis's
 * offline queue, and probes every few seconds would pile up there.
 */
export async function checkReadiness(deps: ReadinessDeps): Promise<Readiness> {
  const [postgres, redis] = await Promise.all([
    answers(() => deps.pool.query('SELECT 1')),
    deps.redis.status === 'ready' ? answers(() => deps.redis.ping()) : Promise.resolve(false),
  ]);
  return { ready: postgres && redis, postgres, redis };
}
