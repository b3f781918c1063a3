import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { QueueEvents, type Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { enqueueExport, type ExportQueue } from '../../jobs/composition/export-queue.ts';
import { QueueRegistry } from '../../jobs/composition/queue-registry.ts';
import { createExportWorker } from '../../jobs/composition/workers.ts';
import { QUEUE } from '../../jobs/definitions.ts';
import { exportJobId, exportJobIdOf } from '../../jobs/payloads/export-job.ts';
import { createRedisConnection } from '../../src/app/redis-connection.ts';
import { enqueueMonthlyExports } from '../../src/app/services/enqueue-monthly-exports.ts';
import { loadConfig } from '../../src/config/config.ts';
import { ValidationError } from '../../src/errors/index.ts';
import { listExports } from '../../src/export/export-files.ts';
import { type ExportRequest, parseExportRequest } from '../../src/export/export-request.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { TEST_REDIS_URL, useTestRedis } from '../helpers/test-redis.ts';
import { insertAccount, insertCoverage, insertSpot } from './seed.ts';

const db = useTestDatabase('exportjobs');
const redisHelper = useTestRedis('export');
let connection: Redis;
let dir: string;
let alice: string;
let bob: string;
const open: Array<{ close(): Promise<unknown> }> = [];

beforeAll(async () => {
  connection = createRedisConnection(TEST_REDIS_URL);
  dir = await mkdtemp(path.join(tmpdir(), 'll-export-jobs-'));
  alice = await insertAccount(db.url, 'alice');
  bob = await insertAccount(db.url, 'bob');
  await insertSpot(db.url, alice, [
    { recordId: 'a1', coin: 'BTC', spotTaxType: 'Deposit', amount: '1.5', ts: '2026-09-30T22:30:00Z' },
    { recordId: 'a2', coin: 'BTC', spotTaxType: 'Sell', amount: '-0.5', ts: '2026-10-31T22:59:59Z' },
  ]);
  // Alice's spot history is synced through October (Berlin time); nothing of Bob's is.
  await insertCoverage(db.url, alice, '2026-09-01', '2026-11-02', ['spot']);
});

afterEach(async () => {
  while (open.length > 0) await open.pop()!.close();
});

afterAll(async () => {
  connection.disconnect();
  await rm(dir, { recursive: true, force: true });
});

function queue(): ExportQueue {
  const queues = new QueueRegistry(redisHelper.prefix, connection, () => connection);
  open.push(queues);
  return queues.get(QUEUE.export);
}

function worker(): Worker {
  const config = loadConfig({ DATABASE_URL: db.url, REDIS_URL: TEST_REDIS_URL, NODE_ENV: 'test' });
  const w = createExportWorker(
    { prefix: redisHelper.prefix, config, connection: () => connection },
    { databaseUrl: db.url, exportDir: dir, prisma: db.prisma, now: () => new Date('2026-11-01T03:00:00Z') },
  );
  open.push(w);
  return w;
}

function events(): QueueEvents {
  const e = new QueueEvents(QUEUE.export, {
    connection: createRedisConnection(TEST_REDIS_URL),
    prefix: redisHelper.prefix,
  });
  open.push(e);
  return e;
}

describe('export queue', () => {
  it('writes the report and its manifest into EXPORT_DIR, with a payload that carries no secret', async () => {
    const q = queue();
    const e = events();
    await e.waitUntilReady();
    worker();
    const request = parseExportRequest({
      report: 'spot-ledger',
      accountId: alice,
      from: '2026-10-01',
      to: '2026-10-31',
      tz: 'Europe/Berlin',
    });
    const job = await enqueueExport(q, request);
    expect(job.id).toBe(exportJobIdOf(alice, `spot-ledger_2026-10-01_2026-10-31_Europe~Berlin`));
    expect(Object.keys(job.data).sort()).toEqual(['accountId', 'from', 'report', 'to', 'tz']);
    const result = await job.waitUntilFinished(e, 20_000);
    expect(result).toMatchObject({ csvFile: 'spot-ledger_2026-10-01_2026-10-31_Europe~Berlin.csv', rowCount: 2 });
    const csv = await readFile(path.join(dir, alice, result.csvFile), 'utf8');
    expect(
      csv
        .split('\n')
        .slice(1, 3)
        .map((l) => l.split(',')[0]),
    ).toEqual(['spot:a1', 'spot:a2']);
    const listed = await listExports(dir, alice);
    expect(listed.map((l) => [l.csvFile, l.manifest.sha256])).toEqual([[result.csvFile, result.sha256]]);
  });

  it('writes a period the synced history does not cover as _PARTIAL, its gaps in the manifest', async () => {
    const q = queue();
    const e = events();
    await e.waitUntilReady();
    worker();
    const request = parseExportRequest({ report: 'spot-ledger', accountId: bob, from: '2026-10-01', to: '2026-10-31' });
    const result = await (await enqueueExport(q, request)).waitUntilFinished(e, 20_000);
    expect(result).toMatchObject({ csvFile: 'spot-ledger_2026-10-01_2026-10-31_UTC_PARTIAL.csv', rowCount: 0 });
    const [listed] = await listExports(dir, bob);
    expect(listed!.csvFile).toBe(result.csvFile);
    expect(listed!.manifest.partial).toBe(true);
    expect(listed!.manifest.coverage?.streams[0]?.gaps).toEqual([
      { start: '2026-10-01T00:00:00.000Z', end: '2026-11-01T00:00:00.000Z' },
    ]);
  });

  it('keeps one job per export: a second request returns it, replaceFinished runs it again', async () => {
    const q = queue();
    const request = parseExportRequest({ report: 'koinly', accountId: alice, from: '2026-10-01', to: '2026-10-31' });
    const first = await enqueueExport(q, request);
    const again = await enqueueExport(q, request);
    expect(again.id).toBe(first.id);
    expect(await q.getJobCounts('waiting')).toEqual({ waiting: 1 });
    const e = events();
    await e.waitUntilReady();
    worker();
    await first.waitUntilFinished(e, 20_000);
    expect((await enqueueExport(q, request)).id).toBe(first.id);
    expect(await q.getJobCounts('completed', 'waiting')).toEqual({ completed: 1, waiting: 0 });
    const rerun = await enqueueExport(q, request, { replaceFinished: true });
    expect(rerun.id).toBe(exportJobId(request));
    await rerun.waitUntilFinished(e, 20_000);
    expect(await q.getJobCounts('completed')).toEqual({ completed: 1 });
  });

  it('fails a job for an unknown account at once, without retries', async () => {
    const q = queue();
    const e = events();
    await e.waitUntilReady();
    worker();
    const request = parseExportRequest({
      report: 'spot-ledger',
      accountId: '00000000-0000-4000-8000-000000000000',
      from: '2026-10-01',
      to: '2026-10-31',
    });
    const job = await enqueueExport(q, request);
    await expect(job.waitUntilFinished(e, 20_000)).rejects.toThrow(/no account with id/);
    const failed = await q.getJob(job.id!);
    expect(failed?.attemptsMade).toBe(1);
  });
});

describe('monthly exports', () => {
  /** The job port's export method, on the test's own queue (what the composition root binds). */
  const exportsOn = (q: ExportQueue) => ({ enqueueExport: (request: ExportRequest) => enqueueExport(q, request) });
  const settings = { reports: ['spot-ledger', 'futures-pnl'], tz: 'Europe/Berlin', accounts: [] as string[] };

  it("enqueues the previous local month's reports for every account, once", async () => {
    const q = queue();
    const now = new Date('2026-11-01T02:00:00Z');
    const { period, jobIds } = await enqueueMonthlyExports({ jobs: exportsOn(q), prisma: db.prisma, settings, now });
    expect([period.from, period.to, period.tz]).toEqual(['2026-10-01', '2026-10-31', 'Europe/Berlin']);
    expect(jobIds.sort()).toEqual(
      [alice, bob]
        .flatMap((id) => [
          exportJobIdOf(id, `spot-ledger_2026-10-01_2026-10-31_Europe~Berlin`),
          exportJobIdOf(id, `futures-pnl_2026-10-01_2026-10-31_Europe~Berlin`),
        ])
        .sort(),
    );
    const second = await enqueueMonthlyExports({ jobs: exportsOn(q), prisma: db.prisma, settings, now });
    expect(second.jobIds.sort()).toEqual(jobIds.sort());
    expect(await q.getJobCounts('waiting')).toEqual({ waiting: 4 });
  });

  it('enqueues nothing when a configured account does not exist', async () => {
    const q = queue();
    await expect(
      enqueueMonthlyExports({
        jobs: exportsOn(q),
        prisma: db.prisma,
        settings: { ...settings, accounts: ['alice', 'carol'] },
      }),
    ).rejects.toThrow(ValidationError);
    expect(await q.getJobCounts('waiting')).toEqual({ waiting: 0 });
    const only = await enqueueMonthlyExports({
      jobs: exportsOn(q),
      prisma: db.prisma,
      settings: { ...settings, accounts: ['bob'] },
      now: new Date('2026-03-15T12:00:00Z'),
    });
    expect(only.jobIds).toEqual([
      exportJobIdOf(bob, `spot-ledger_2026-02-01_2026-02-28_Europe~Berlin`),
      exportJobIdOf(bob, `futures-pnl_2026-02-01_2026-02-28_Europe~Berlin`),
    ]);
  });
});
