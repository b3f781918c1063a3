import { createHash } from 'node:crypto';

import type { Cluster, Redis } from 'ioredis';

/** EVALSHA with a fallback to EVAL when Redis has not cached the script yet (restart, flush). */
export async function runScript(
  redis: Redis | Cluster,
  script: string,
  keys: readonly string[],
  args: readonly (string | number)[],
): Promise<unknown> {
  const sha = sha1(script);
  try {
    return await redis.evalsha(sha, keys.length, ...keys, ...args);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return redis.eval(script, keys.length, ...keys, ...args);
  }
}

const hashes = new Map<string, string>();
function sha1(script: string): string {
  let hash = hashes.get(script);
  if (hash === undefined) {
    hash = createHash('sha1').update(script).digest('hex');
    hashes.set(script, hash);
  }
  return hash;
}
