import type { Queue } from 'bullmq';
import type { FastifyBaseLogger } from 'fastify';
import type { Cluster, Redis } from 'ioredis';
import type pg from 'pg';

import type { ExportQueue } from '../../jobs/composition/export-queue.ts';
import type { FilingQueue } from '../../jobs/composition/filing-queue.ts';
import type { PrismaClient } from '../db/prisma.ts';
import type { ValuationSettings } from '../export/export-request.ts';
import type { WebTokens } from './web-auth.ts';

/** What the web page's routes are given: the composition root (start-web.ts, the tests) builds it. */
export interface WebAppDeps {
  tokens: WebTokens;
  exportDir: string;
  databaseUrl: string;
  /** For the coverage queries (the ledger's multirange arithmetic is raw SQL). */
  pool: pg.Pool;
  prisma: PrismaClient;
  exportQueue: ExportQueue;
  /** Where the tax years page asks the worker for figures (src/export/filing). */
  filingQueue: FilingQueue;
  /** How long a tax years view waits for figures it asked for (ms; default DEFAULT_FILING_WAIT_MS). */
  filingWaitMs?: number;
  /** The Redis connection the export queue uses, and the sessions: each request waits for it (requireRedis). */
  redis: Redis | Cluster;
  /** QUEUE_PREFIX: the sessions' keys live under it, beside the queues'. */
  prefix: string;
  /** Queues shown on bull-board (the export queue and the others). */
  boardQueues: readonly Queue[];
  /** TRUST_PROXY: which hops may name the client's address (the sign-in lockout counts per address). */
  trustProxy: boolean | number | readonly string[];
  /** config.valuation: the currency and price tolerance of realized gains and income. */
  valuation?: ValuationSettings;
  logger?: FastifyBaseLogger;
}
