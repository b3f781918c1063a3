import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { SecretBox } from '../../src/crypto/secret-box.ts';
import type { ExchangeClient } from '../../src/exchange/index.ts';
import { createRootLogger } from '../../src/logging/logger.ts';
import { type ActionInput, redactInput, splitSecrets } from '../../src/management/action-input.ts';
import { recordAction } from '../../src/management/action-store.ts';
import { runAction } from '../../src/management/run-action.ts';
import { type Pipeline, startPipeline } from '../helpers/pipeline.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { dropRunLockHolder, PATHS, requestsTo } from './support.ts';

const db = useTestDatabase('mgmtresume');
let pipeline: Pipeline;

beforeAll(async () => {
  pipeline = await startPipeline({ databaseUrl: db.url });
});
afterAll(async () => {
  await pipeline?.close();
});

describe('a worker that dies after sending a create', () => {
  it('leaves the request row "sent"; the next run probes instead of sending the create blindly', async () => {
    const box = new SecretBox(pipeline.runtime.config.masterKey);
    const log = createRootLogger({ level: 'silent' });
    const input: ActionInput = { command: 'subaccount_create', params: { username: 'crashedrun' } };
    const { action } = await recordAction(
      db.prisma,
      box,
      pipeline.accountId,
      splitSecrets(input),
      'caller:crash-1',
      redactInput(input),
    );
    const real = await pipeline.runtime.clients.forAccount(pipeline.accountId);
    let answered = false;
    // The first worker: its create reaches the exchange, then the worker "dies" (never returns).
    const dying = {
      createSub: async (params: Parameters<ExchangeClient['createSub']>[0]) => {
        await real.createSub(params);
        answered = true;
        return new Promise<never>(() => undefined);
      },
    } as unknown as ExchangeClient;
    void runAction(
      { prisma: db.prisma, pool: pipeline.runtime.pool, box, log, clients: { forAccount: async () => dying } },
      action.id,
    );
    for (let k = 0; k < 500 && !answered; k++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(answered).toBe(true);
    const stuck = await db.prisma.managementRequest.findMany({ where: { actionId: action.id } });
    expect(stuck.map((r) => r.status)).toEqual(['sent']);

    // The worker dies: its connection drops, and the run lock with it.
    expect(await dropRunLockHolder(pipeline.runtime.pool, action.id)).toBe(1);
    // The job is handed to another worker (BullMQ's stalled-job recovery): it resumes from the audit rows.
    pipeline.sim.requestLog.clear();
    const finished = await runAction(
      { prisma: db.prisma, pool: pipeline.runtime.pool, box, log, clients: pipeline.runtime.clients },
      action.id,
    );
    // The probe's 40060 proves the name exists, not that the lost create made it: a person checks.
    expect(finished.status).toBe('ambiguous');
    expect(finished.runs).toBe(2);
    expect(finished.resolution).toMatch(/the worker stopped before its answer was recorded/);
    expect(finished.resolution).toMatch(/does not prove the lost request created it/);
    expect(requestsTo(pipeline, PATHS.createSub).map((r) => r.code)).toEqual(['40060']);
    expect(pipeline.sim.state().subAccounts.filter((s) => s.name === 'crashedrun')).toHaveLength(1);
    const requests = await db.prisma.managementRequest.findMany({
      where: { actionId: action.id },
      orderBy: { seq: 'asc' },
    });
    expect(requests.map((r) => [r.purpose, r.status])).toEqual([
      ['send', 'sent'],
      ['probe', 'failed'],
    ]);
  });

  it('an action that has ended is not run again', async () => {
    const box = new SecretBox(pipeline.runtime.config.masterKey);
    const log = createRootLogger({ level: 'silent' });
    const done = await db.prisma.managementAction.findFirstOrThrow({ where: { idempotencyKey: 'caller:crash-1' } });
    pipeline.sim.requestLog.clear();
    const again = await runAction(
      { prisma: db.prisma, pool: pipeline.runtime.pool, box, log, clients: pipeline.runtime.clients },
      done.id,
    );
    expect(again.runs).toBe(done.runs);
    expect(pipeline.sim.requestLog.list()).toEqual([]);
  });

  it('a second run while the first still lives (its job lock lapsed) leaves the action alone', async () => {
    const box = new SecretBox(pipeline.runtime.config.masterKey);
    const log = createRootLogger({ level: 'silent' });
    const deps = { prisma: db.prisma, pool: pipeline.runtime.pool, box, log, clients: pipeline.runtime.clients };
    const input: ActionInput = {
      command: 'subaccount_create',
      params: { username: 'twiceatonce' },
    };
    const { action } = await recordAction(
      db.prisma,
      box,
      pipeline.accountId,
      splitSecrets(input),
      'caller:twice-1',
      redactInput(input),
    );
    pipeline.sim.requestLog.clear();
    // Long enough that the second run ends before the first's answer, even on a loaded machine (2 s was
    // not, at a load average of 8: the second run took longer and found the action succeeded).
    pipeline.sim.faults.set({ latencyMs: 6_000, paths: [PATHS.createSub] });
    const first = runAction(deps, action.id);
    for (let k = 0; k < 500 && requestsTo(pipeline, PATHS.createSub).length === 0; k++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const second = await runAction(deps, action.id);
    // Untouched: still the first run's, with its one run counted and nothing sent by the second.
    expect(second).toMatchObject({ status: 'running', runs: 1 });
    const done = await first;
    pipeline.sim.faults.clear();
    expect(done).toMatchObject({ status: 'succeeded', runs: 1 });
    expect(requestsTo(pipeline, PATHS.createSub)).toHaveLength(1);
    expect(pipeline.sim.state().subAccounts.filter((s) => s.name === 'twiceatonce')).toHaveLength(1);
  });
});
