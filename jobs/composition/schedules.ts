import { CronExpressionParser } from 'cron-parser';

import type { SkewedSchedule } from '../../src/app/job-port.ts';
import { logger } from '../../src/logging/logger.ts';
import { type AnyJobName, JOB, QUEUE, type QueueName } from '../definitions.ts';
import type { Runtime } from '../runtime.ts';

/** What registering the schedules needs of the runtime: the configuration and the queues. */
type ScheduleHost = Pick<Runtime, 'config' | 'queues'>;

export interface ScheduleDefinition {
  id: string;
  queue: QueueName;
  jobName: AnyJobName;
  pattern: string;
}

/** Every recurring job, from the configuration. Crons only enqueue; processors do the work. */
export function scheduleDefinitions(runtime: Pick<Runtime, 'config'>): ScheduleDefinition[] {
  const { schedules } = runtime.config;
  return [
    { id: 'nightly-sync', queue: QUEUE.sync, jobName: JOB.nightly, pattern: schedules.nightly },
    { id: 'net-flow-poll', queue: QUEUE.marketData, jobName: JOB.netFlow, pattern: schedules.marketData },
    { id: 'oi-limit-poll', queue: QUEUE.marketData, jobName: JOB.oiLimits, pattern: schedules.oiLimits },
  ];
}

/**
 * Registers (or updates) every job scheduler. Upserting by id makes it safe
 * for every worker to do at start-up: two workers still give one scheduler
 * each, with the latest configuration. The registry's queues carry their
 * default job options, which BullMQ merges into each scheduled job
 * (attempts, backoff, removeOnComplete/Fail).
 */
export async function upsertSchedules(runtime: ScheduleHost): Promise<ScheduleDefinition[]> {
  const definitions = scheduleDefinitions(runtime);
  for (const definition of definitions) {
    await runtime.queues
      .untyped(definition.queue)
      .upsertJobScheduler(
        definition.id,
        { pattern: definition.pattern, tz: 'UTC' },
        { name: definition.jobName, data: {} },
      );
  }
  logger('schedules').info({ schedules: definitions.map((d) => `${d.id} ${d.pattern}`) }, 'job schedulers registered');
  return definitions;
}

/** The ids of the schedulers Redis does not hold (a flush or a restart without persistence lost them). */
export async function missingSchedules(runtime: ScheduleHost): Promise<string[]> {
  const missing: string[] = [];
  for (const definition of scheduleDefinitions(runtime)) {
    const scheduler = await runtime.queues.untyped(definition.queue).getJobScheduler(definition.id);
    if (!scheduler) missing.push(definition.id);
  }
  return missing;
}

/**
 * The schedulers whose next run lies further ahead of `now` than their own interval (the cron's
 * gap between its next two runs from `now`): a clock that ran ahead (a worker's or Redis's jumping a
 * day for a minute) let BullMQ compute the next run from the wrong "now", and every run until
 * then would be skipped silently (issue 43: 23 hourly market-data polls). Each is removed and
 * registered again, so its next run is computed from the clock as it is now; the caller logs and
 * alerts the runs skipped.
 */
export async function repairSkewedSchedules(runtime: ScheduleHost, now: number): Promise<SkewedSchedule[]> {
  const skewed: SkewedSchedule[] = [];
  for (const definition of scheduleDefinitions(runtime)) {
    const queue = runtime.queues.untyped(definition.queue);
    const scheduler = await queue.getJobScheduler(definition.id);
    if (!scheduler?.next) continue;
    const runs = CronExpressionParser.parse(definition.pattern, { currentDate: new Date(now), tz: 'UTC' });
    const expected = runs.next().getTime();
    const interval = runs.next().getTime() - expected;
    if (scheduler.next - now <= interval) continue;
    await queue.removeJobScheduler(definition.id);
    await queue.upsertJobScheduler(
      definition.id,
      { pattern: definition.pattern, tz: 'UTC' },
      { name: definition.jobName, data: {} },
    );
    const after = await queue.getJobScheduler(definition.id);
    skewed.push({
      id: definition.id,
      pattern: definition.pattern,
      next: scheduler.next,
      expected,
      now: after?.next ?? expected,
    });
  }
  return skewed;
}

/** The nightly sync's scheduler (undefined when it is not registered) and how many workers take sync jobs. */
export async function nightlySyncState(runtime: Pick<Runtime, 'queues'>) {
  const queue = runtime.queues.get(QUEUE.sync);
  return { nightly: await queue.getJobScheduler('nightly-sync'), workers: await queue.getWorkersCount() };
}
