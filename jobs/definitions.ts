import type { DefaultJobOptions } from 'bullmq';

/**
 * Every queue, job name and default job option in one place, so producers
 * (CLI, schedules, HTTP) and processors never disagree about them.
 */
export const QUEUE = {
  /** Pages one window of one stream into Postgres (payload: IngestWindowJob). */
  ingest: 'ingest',
  /** Plans and enqueues incremental syncs of an account (nightly or on demand). */
  sync: 'sync',
  /** Runs the reconciliation checks after a sync. */
  reconcile: 'reconcile',
  /** Polls public market data and OI limits. */
  marketData: 'market-data',
  /** Writes CSV reports. */
  export: 'export',
  /** Management and order-cancellation actions (audited). */
  management: 'management',
} as const;

export type QueueName = (typeof QUEUE)[keyof typeof QUEUE];

/** The BullMQ key prefix of production queues; tests pass their own. */
export const DEFAULT_PREFIX = 'ledgerline';

const KEEP_FINISHED = { age: 7 * 24 * 3600, count: 10_000 };

export const JOB_OPTIONS: Record<QueueName, DefaultJobOptions> = {
  [QUEUE.ingest]: {
    attempts: 8,
    backoff: { type: 'exponential', delay: 2_000 },
    removeOnComplete: KEEP_FINISHED,
    removeOnFail: KEEP_FINISHED,
  },
  [QUEUE.sync]: {
    attempts: 3,
    backoff: { type: 'exponential', delay: 10_000 },
    removeOnComplete: KEEP_FINISHED,
    removeOnFail: KEEP_FINISHED,
  },
  [QUEUE.reconcile]: {
    attempts: 2,
    backoff: { type: 'exponential', delay: 10_000 },
    removeOnComplete: KEEP_FINISHED,
    removeOnFail: KEEP_FINISHED,
  },
  [QUEUE.marketData]: {
    attempts: 3,
    backoff: { type: 'exponential', delay: 1_000 },
    removeOnComplete: { age: 24 * 3600, count: 1_000 },
    removeOnFail: KEEP_FINISHED,
  },
  [QUEUE.export]: {
    attempts: 3,
    backoff: { type: 'exponential', delay: 5_000 },
    removeOnComplete: KEEP_FINISHED,
    removeOnFail: KEEP_FINISHED,
  },
  // Management actions are never retried by BullMQ itself: after a failure the
  // processor decides from the exchange's state (an ambiguous create must not
  // be sent twice), so a retry is always an explicit decision of the processor.
  [QUEUE.management]: {
    attempts: 1,
    removeOnComplete: KEEP_FINISHED,
    removeOnFail: KEEP_FINISHED,
  },
};
