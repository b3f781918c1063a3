import { Queue } from 'bullmq';
import { logger } from '../src/logging/logger.ts';
import { QUEUE, type QueueName } from './definitions.ts';
import { MARKET_DATA_JOB } from './market-data/market-data-processor.ts';
import type { Runtime } from './runtime.ts';
import { SYNC_JOB } from './sync/sync-jobs.ts';

export interface ScheduleDefinition {
  id: string;
  queue: QueueName;
  jobName: string;
  pattern: string;
}

/** Every recurring job, from the configuration. Crons only enqueue; processors do the work. */
export function scheduleDefinitions(runtime: Runtime): ScheduleDefinition[] {
  const { schedules } = runtime.config;
  return [
    { id: 'nightly-sync', queue: QUEUE.sync, jobName: SYNC_JOB.nightly, pattern: schedules.nightly },
    { id: 'net-flow-poll', queue: QUEUE.marketData, jobName: MARKET_DATA_JOB.netFlow, pattern: schedules.marketData },
    { id: 'oi-limit-poll', queue: QUEUE.marketData, jobName: MARKET_DATA_JOB.oiLimits, pattern: schedules.oiLimits },
  ];
}

/**
 * Registers (or updates) every job scheduler. Upserting by id makes it safe
 * for every worker to do at start-up: two workers still give one scheduler
 * each, with the latest configuration.
 */
export async function upsertSchedules(runtime: Runtime): Promise<ScheduleDefinition[]> {
  const definitions = scheduleDefinitions(runtime);
  const queues = new Map<QueueName, Queue>();
  try {
    for (const definition of definitions) {
      let queue = queues.get(definition.queue);
      if (!queue) {
        queue = new Queue(definition.queue, { prefix: runtime.prefix, connection: runtime.redis });
        queues.set(definition.queue, queue);
      }
      await queue.upsertJobScheduler(
        definition.id,
        { pattern: definition.pattern, tz: 'UTC' },
        { name: definition.jobName, data: {} },
      );
    }
  } finally {
    await Promise.all([...queues.values()].map((q) => q.close()));
  }
  logger('schedules').info({ schedules: definitions.map((d) => `${d.id} ${d.pattern}`) }, 'job schedulers registered');
  return definitions;
}
