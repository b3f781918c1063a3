import { afterAll, beforeAll } from 'vitest';

import { createRuntime } from '../../jobs/composition/create-runtime.ts';
import { type RunningWorkers, startWorkers } from '../../jobs/composition/workers.ts';
import type { Runtime } from '../../jobs/runtime.ts';
import { loadConfig } from '../../src/config/config.ts';
import { migrateDatabase } from '../../src/db/migrations.ts';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.ts';
import type { WriteBlock } from './database-write-block.ts';
import { freshDatabaseUrl } from './test-database.ts';
import { randomPrefix, TEST_REDIS_URL } from './test-redis.ts';

export interface WriteBlockRig {
  readonly url: string;
  readonly prefix: string;
  /** The tiny simulator, started before the tests. */
  readonly sim: RunningSimulator;
  /** A runtime of its own: a read-only database's setting reaches only sessions opened after it. */
  runtimeNow(): Runtime;
  /** Starts workers on `runtime` (two at a time), closing any this rig started before. */
  startWorkers(runtime: Runtime): Promise<RunningWorkers>;
}

/**
 * What the tests of a database that cannot write share: a database made the way `way` needs it and
 * migrated, the tiny simulator, runtimes whose ingest jobs try twice, 100 ms apart, and after the
 * tests the workers closed, the database writable and removed, and the queues' keys deleted.
 */
export function useWriteBlockRig(label: string, way: WriteBlock): WriteBlockRig {
  const url = freshDatabaseUrl(label);
  const prefix = randomPrefix(label).replaceAll(':', '-');
  const opened: Runtime[] = [];
  let sim: RunningSimulator | undefined;
  let workers: RunningWorkers | undefined;

  beforeAll(async () => {
    await way.create(url);
    await migrateDatabase(url);
    sim = await startSimulator({ scale: 'tiny' });
  }, 120_000);
  afterAll(async () => {
    await workers?.close();
    await way.unblock().catch(() => undefined);
    const keys = await opened[0]?.redis.keys(`${prefix}:*`);
    if (keys && keys.length > 0) await opened[0]!.redis.del(...keys);
    for (const runtime of opened) await runtime.close();
    await sim?.close();
    await way.remove();
  });

  return {
    url,
    prefix,
    get sim() {
      if (sim === undefined) throw new Error('the simulator starts in beforeAll');
      return sim;
    },
    runtimeNow() {
      const config = loadConfig({
        DATABASE_URL: url,
        REDIS_URL: TEST_REDIS_URL,
        NODE_ENV: 'test',
        LOG_LEVEL: 'silent',
      });
      const runtime = createRuntime(config, {
        prefix,
        jobOptions: { ingest: { attempts: 2, backoff: { type: 'fixed', delay: 100 } } },
      });
      opened.push(runtime);
      return runtime;
    },
    async startWorkers(runtime) {
      await workers?.close();
      workers = startWorkers(runtime, { concurrency: 2 });
      return workers;
    },
  };
}
