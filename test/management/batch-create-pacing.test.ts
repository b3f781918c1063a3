import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type Pipeline, startPipeline } from '../helpers/pipeline.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { PATHS, requestsTo, runToEnd, subName } from './support.ts';

const db = useTestDatabase('mgmtpacing');
let pipeline: Pipeline;

beforeAll(async () => {
  // The spec's own rate limits, unscaled: batch creation at most once per second.
  pipeline = await startPipeline({ databaseUrl: db.url, rateFactor: 1 });
  pipeline.startWorkers();
});
afterAll(async () => {
  await pipeline?.close();
});

describe('batch creation at the spec rate', () => {
  it('turns 11 sub-accounts into 3 requests of at most 5, at least a second apart, none refused', async () => {
    pipeline.sim.requestLog.clear();
    const names = Array.from({ length: 11 }, (_, k) => subName(20_000 + k * 7));
    const action = await runToEnd(pipeline, {
      command: 'subaccount_batch_create',
      params: {
        items: names.map((name) => ({ subAccountName: name, passphrase: 'Pace2026ab', label: 'p', permList: [] })),
      },
    });
    expect(action.status).toBe('succeeded');
    const sent = requestsTo(pipeline, PATHS.batchCreate);
    expect(sent.map((r) => r.status)).toEqual([200, 200, 200]);
    const gaps = sent.slice(1).map((r, k) => r.time - sent[k]!.time);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(990);
    const bodies = await db.prisma.managementRequest.findMany({
      where: { actionId: action.id },
      orderBy: { seq: 'asc' },
    });
    expect(bodies.map((r) => (r.body as unknown[]).length)).toEqual([5, 5, 1]);
    expect(pipeline.sim.state().subAccounts.filter((s) => names.includes(s.name))).toHaveLength(11);
  });
});
