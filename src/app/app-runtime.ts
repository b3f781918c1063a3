import type { Cluster, Redis } from 'ioredis';
import type pg from 'pg';

import type { AccountService } from '../accounts/account-service.ts';
import type { ClientProvider } from '../accounts/client-provider.ts';
import type { Config } from '../config/config.ts';
import type { PrismaClient } from '../db/prisma.ts';
import type { JobPort } from './job-port.ts';

/**
 * The long-lived resources of a process, as the application services see them: the queues only
 * through the port they own (`jobs`). Built (and released) by the composition root,
 * jobs/composition/create-runtime.ts, whose Runtime (jobs/runtime.ts) adds the queues themselves.
 */
export interface AppRuntime {
  config: Config;
  prefix: string;
  pool: pg.Pool;
  prisma: PrismaClient;
  /** Plain commands (rate budget, reads); BullMQ workers get their own connections. */
  redis: Redis | Cluster;
  accounts: AccountService;
  clients: ClientProvider;
  /** The job queue, through the services' port. */
  jobs: JobPort;
  /** A new Redis connection of the process's own (blocking reads need their own). */
  connection(): Redis | Cluster;
  close(): Promise<void>;
}
