import type { DefaultJobOptions, FlowProducer, Queue } from 'bullmq';

import type { ExportJobData, ExportJobResult } from './payloads/export-job.ts';
import type { FilingJob, FilingJobResult } from './payloads/filing-job.ts';
import type { IngestWindowJob } from './payloads/ingest-job.ts';
import type { ManagementJob } from './payloads/management-job.ts';
import type { PackJobData } from './payloads/pack-job.ts';
import type { ReconcileJob, ReconcileJobResult } from './payloads/reconcile-job.ts';
import type { SyncAccountJob, SyncFinishJob } from './payloads/sync-jobs.ts';

/**
 * Every queue, job name, payload type and default job option in one place,
 * so producers (CLI, schedules, HTTP, flows) and processors never disagree
 * about them. The composition root (jobs/composition) builds the queues from this map
 * with QUEUE_PREFIX applied; nothing else constructs a Queue.
 */
export const QUEUE = {
  /** Pages one window of one stream into Postgres. */
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
  /** Computes the tax years page's figures per input version (src/export/filing). */
  filing: 'filing',
} as const;

export type QueueName = (typeof QUEUE)[keyof typeof QUEUE];
export const QUEUE_NAMES: readonly QueueName[] = Object.values(QUEUE);

/** A poll or fan-out job carries nothing: what it does comes from the configuration. */
export type NoPayload = Record<string, never>;

/** Queue -> job name -> payload. Payloads name entities by id, never carry a secret. */
export interface QueueJobs {
  ingest: { 'ingest-window': IngestWindowJob };
  sync: { nightly: NoPayload; 'sync-account': SyncAccountJob; 'sync-finish': SyncFinishJob };
  reconcile: { 'reconcile-account': ReconcileJob };
  'market-data': { 'net-flow': NoPayload; 'oi-limits': NoPayload };
  export: { 'write-report': ExportJobData; 'write-pack': PackJobData };
  management: { 'management-action': ManagementJob };
  filing: { 'filing-figures': FilingJob };
}

/** What a queue's jobs return, where a producer reads it. */
export interface QueueResults {
  ingest: unknown;
  sync: unknown;
  reconcile: ReconcileJobResult;
  'market-data': unknown;
  export: ExportJobResult;
  management: unknown;
  filing: FilingJobResult;
}

export type JobName<Q extends QueueName> = keyof QueueJobs[Q] & string;
/** Every job name of every queue. */
export type AnyJobName = { [Q in QueueName]: JobName<Q> }[QueueName];
export type JobData<Q extends QueueName, N extends JobName<Q> = JobName<Q>> = QueueJobs[Q][N];
/**
 * A queue of the registry. Its name type stays `string` (BullMQ's workers and
 * events hand out plain names); producers use the JOB constants.
 */
export type TypedQueue<Q extends QueueName> = Queue<JobData<Q>, QueueResults[Q], string>;

/** The job names, as values. */
export const JOB = {
  ingestWindow: 'ingest-window',
  nightly: 'nightly',
  syncAccount: 'sync-account',
  syncFinish: 'sync-finish',
  reconcileAccount: 'reconcile-account',
  netFlow: 'net-flow',
  oiLimits: 'oi-limits',
  writeReport: 'write-report',
  writePack: 'write-pack',
  managementAction: 'management-action',
  filingFigures: 'filing-figures',
} as const satisfies Record<string, AnyJobName>;

/** The process's queues, built once by the composition root (jobs/composition/queue-registry.ts). */
export interface Queues {
  readonly prefix: string;
  get<Q extends QueueName>(name: Q): TypedQueue<Q>;
  /** A queue by a name known only at run time (schedules, the dashboard): payloads unchecked. */
  untyped(name: QueueName): Queue;
  /** Every queue, e.g. for the dashboard. */
  all(): Queue[];
  /** For jobs added with children (the nightly sync's windows under its finish job). */
  flows(): FlowProducer;
}

const KEEP_FINISHED = { age: 7 * 24 * 3600, count: 10_000 };

export const JOB_OPTIONS: Readonly<Record<QueueName, DefaultJobOptions>> = {
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
  // A computation is keyed by its input version: once done, its figures are stored and the job
  // is only worth keeping a while (the page reads a failure's reason from it).
  [QUEUE.filing]: {
    attempts: 3,
    backoff: { type: 'exponential', delay: 2_000 },
    removeOnComplete: { age: 3600, count: 1_000 },
    removeOnFail: { age: 24 * 3600, count: 1_000 },
  },
};
