import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { QUEUE } from '../../jobs/definitions.ts';
import { STREAMS } from '../../src/streams/registry.ts';
import { runCliLive } from '../helpers/cli.ts';
import { type Pipeline, startPipeline } from '../helpers/pipeline.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { TEST_REDIS_URL } from '../helpers/test-redis.ts';

const db = useTestDatabase('backfillcli');
let pipeline: Pipeline;
let env: Record<string, string>;

beforeAll(async () => {
  pipeline = await startPipeline({ databaseUrl: db.url });
  env = { DATABASE_URL: db.url, REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: pipeline.runtime.prefix };
});
afterAll(async () => {
  await pipeline?.close();
});

const today = new Date().toISOString().slice(0, 10);
const cases: Array<[string, string[], RegExp]> = [
  [
    'unknown stream',
    ['--stream', 'futures', '--from', '2026-01-01'],
    // Every stream of the registry, then `all` (a stream added there is listed without an edit here).
    new RegExp(`^ValidationError: --stream: must be one of ${[...STREAMS, 'all'].join(', ')}`),
  ],
  [
    'from after to',
    ['--stream', 'spot', '--from', '2026-03-01', '--to', '2026-02-01'],
    /^ValidationError: --from: must be before --to/,
  ],
  ['malformed from', ['--stream', 'spot', '--from', '2026-13-45'], /^ValidationError: --from: must be a date/],
  [
    'malformed to',
    ['--stream', 'spot', '--from', '2026-01-01', '--to', 'yesterday'],
    /^ValidationError: --to: must be a date/,
  ],
  [
    'positions beyond the horizon',
    ['--stream', 'positions', '--from', '2025-01-01'],
    /^ValidationError: --from: positions can only be read for the last 90 days/,
  ],
  [
    'from in the future',
    ['--stream', 'spot', '--from', '2099-01-01', '--to', '2099-02-01'],
    /^ValidationError: --from: must not be in the future/,
  ],
];

describe('ledgerline backfill: bad input', () => {
  // Live, not spawnSync: checks against "now" ask the exchange's clock, and the simulator answers from this process.
  it.each(cases)('%s: one-line error, non-zero exit, nothing enqueued', async (_name, args, message) => {
    const result = await runCliLive(['backfill', '--account', 'demo', ...args], env);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.split('\n')).toHaveLength(1);
    expect(result.status).toBe(2);
  });

  it('unknown account: one-line error', async () => {
    const result = await runCliLive(['backfill', '--account', 'nobody', '--stream', 'spot', '--from', today], env);
    expect(result.stderr).toBe(
      'AccountNotFoundError: account "nobody" is not registered (see: ledgerline accounts list)',
    );
    expect(result.status).toBe(2);
  });

  it('left no window and no job behind', async () => {
    expect(await db.prisma.syncWindow.count()).toBe(0);
    const queue = new Queue(QUEUE.ingest, { prefix: env.QUEUE_PREFIX, connection: pipeline.runtime.redis });
    const counts = await queue.getJobCounts();
    await queue.close();
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(0);
  });
});
