import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { scheduleDefinitions, upsertSchedules } from '../../jobs/composition/schedules.ts';
import { alertOfSkewedSchedule, healQueues } from '../../src/app/services/heal.ts';
import { type Pipeline, startPipeline } from '../helpers/pipeline.ts';
import { useTestDatabase } from '../helpers/test-database.ts';

/*
 * Issue 43, item 6: a worker whose clock ran a day ahead for a minute registered its schedules from
 * that clock, and the market-data polls stayed a day late, silently. Healing finds every scheduler
 * whose next run lies further ahead than its interval, registers it again from the clock as it is,
 * and says so (log and alert).
 */

const db = useTestDatabase('skewedschedules');
let pipeline: Pipeline;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

beforeAll(async () => {
  // The default crons: nightly at 02:00, market data hourly, open-interest limits every 6 hours.
  pipeline = await startPipeline({ databaseUrl: db.url });
});
afterAll(async () => {
  vi.useRealTimers();
  await pipeline?.close();
});

async function nextRuns(): Promise<Record<string, number>> {
  const { runtime } = pipeline;
  const out: Record<string, number> = {};
  for (const d of scheduleDefinitions(runtime)) {
    out[d.id] = (await runtime.queues.untyped(d.queue).getJobScheduler(d.id))!.next!;
  }
  return out;
}

describe('schedules after a clock jump', () => {
  it('leaves schedules registered on a true clock alone', async () => {
    const { runtime } = pipeline;
    await upsertSchedules(runtime);
    const healed = await healQueues(runtime, 60_000);
    expect(healed.skewed).toEqual([]);
  });

  it('re-registers every schedule registered while the clock was a day ahead, and names what was skipped', async () => {
    const { runtime } = pipeline;
    const trueNow = Date.now();
    // The worker's clock a day ahead while it registers its schedules (only Date is moved).
    vi.useFakeTimers({ toFake: ['Date'], now: trueNow + DAY });
    try {
      await upsertSchedules(runtime);
    } finally {
      vi.useRealTimers();
    }
    const skewedRuns = await nextRuns();
    // The hourly poll's next run a day late: 23 polls would be skipped.
    expect(skewedRuns['net-flow-poll']! - trueNow).toBeGreaterThan(23 * HOUR);

    const now = Date.now();
    const healed = await healQueues(runtime, 60_000, now);
    expect(healed.skewed.map((s) => s.id).sort()).toEqual(['net-flow-poll', 'nightly-sync', 'oi-limit-poll']);
    for (const skewed of healed.skewed) expect(skewed.next).toBe(skewedRuns[skewed.id]);

    // Each one's next run is within its interval of now again.
    const repaired = await nextRuns();
    expect(repaired['net-flow-poll']! - now).toBeLessThanOrEqual(HOUR);
    expect(repaired['oi-limit-poll']! - now).toBeLessThanOrEqual(6 * HOUR);
    expect(repaired['nightly-sync']! - now).toBeLessThanOrEqual(DAY);
    expect((await healQueues(runtime, 60_000)).skewed).toEqual([]);

    // What the operator is told.
    const poll = healed.skewed.find((s) => s.id === 'net-flow-poll')!;
    const alert = alertOfSkewedSchedule(poll, now);
    expect(alert).toMatchObject({ event: 'schedule_skipped', schedule: 'net-flow-poll' });
    expect(alert.text).toMatch(
      /^ledgerline: schedule net-flow-poll \(15 \* \* \* \*\) was due next at \S+, further ahead than its interval \(a clock jump\): runs until then would have been skipped; registered again, next run \S+$/,
    );
  });
});
