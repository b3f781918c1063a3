import type { Cluster, Redis } from 'ioredis';
import type pg from 'pg';

import type { AccountService } from '../src/accounts/account-service.ts';
import type { ClientProvider } from '../src/accounts/client-provider.ts';
import type { Config } from '../src/config/config.ts';
import type { PrismaClient } from '../src/db/prisma.ts';
import type { Queues } from './definitions.ts';

/**
 * The long-lived resources one process shares between its workers, queues
 * and commands. Built (and released) by the composition root,
 * src/app/create-runtime.ts; jobs and commands only receive it.
 */
export interface Runtime {
  config: Config;
  prefix: string;
  pool: pg.Pool;
  prisma: PrismaClient;
  /** Plain commands (rate budget, reads); BullMQ workers get their own connections. */
  redis: Redis | Cluster;
  accounts: AccountService;
  clients: ClientProvider;
  queues: Queues;
  /** A new connection for a BullMQ Worker (blocking reads need their own). */
  connection(): Redis | Cluster;
  close(): Promise<void>;
}
