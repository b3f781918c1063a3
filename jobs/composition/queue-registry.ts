import { type DefaultJobOptions, FlowProducer, Queue } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';

import { JOB_OPTIONS, type QueueName, type Queues, type TypedQueue } from '../definitions.ts';

type QueueMap = { [Q in QueueName]: TypedQueue<Q> };

/** Per queue, default job options that replace those of jobs/definitions.ts. */
export type JobOptionOverrides = Partial<Record<QueueName, DefaultJobOptions>>;

/**
 * The only place queues are constructed: each with QUEUE_PREFIX and its
 * queue's default job options, on the runtime's command connection, and
 * closed with the runtime.
 */
export class QueueRegistry implements Queues {
  readonly #queues: QueueMap;
  #flows: FlowProducer | undefined;

  constructor(
    readonly prefix: string,
    connection: Redis | Cluster,
    /** A dedicated connection for the flow producer, made on first use. */
    private readonly flowConnection: () => Redis | Cluster,
    /** Options that differ from a queue's defaults (a test's short backoff), merged over them. */
    jobOptions: JobOptionOverrides = {},
  ) {
    const make = <Q extends QueueName>(name: Q): TypedQueue<Q> =>
      new Queue(name, { prefix, connection, defaultJobOptions: { ...JOB_OPTIONS[name], ...jobOptions[name] } });
    // Built eagerly (cheap: they share the runtime's connection), so the map is complete by type.
    this.#queues = {
      ingest: make('ingest'),
      sync: make('sync'),
      reconcile: make('reconcile'),
      'market-data': make('market-data'),
      export: make('export'),
      management: make('management'),
      filing: make('filing'),
    };
  }

  get<Q extends QueueName>(name: Q): TypedQueue<Q> {
    return this.#queues[name];
  }

  untyped(name: QueueName): Queue {
    return this.#queues[name];
  }

  all(): Queue[] {
    return Object.values(this.#queues);
  }

  flows(): FlowProducer {
    this.#flows ??= new FlowProducer({ prefix: this.prefix, connection: this.flowConnection() });
    return this.#flows;
  }

  async close(): Promise<void> {
    await Promise.all([...Object.values(this.#queues).map((queue) => queue.close()), this.#flows?.close()]);
  }
}
