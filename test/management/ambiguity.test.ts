import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type Pipeline, startPipeline } from '../helpers/pipeline.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { PATHS, requestsTo, runToEnd, subName } from './support.ts';

const db = useTestDatabase('mgmtambig');
let pipeline: Pipeline;

beforeAll(async () => {
  pipeline = await startPipeline({ databaseUrl: db.url });
  pipeline.startWorkers();
});
afterAll(async () => {
  await pipeline?.close();
});

function requestsOf(actionId: string) {
  return db.prisma.managementRequest.findMany({ where: { actionId }, orderBy: { seq: 'asc' } });
}

describe('a create applied by the exchange whose answer is lost', () => {
  it('create-sub: a probe with the same unique name answers 40060; exactly one sub-account, ambiguous audit row says why', async () => {
    pipeline.sim.requestLog.clear();
    pipeline.sim.faults.set({ applyThenReset: { path: PATHS.createSub, count: 1 } });
    const action = await runToEnd(pipeline, { command: 'subaccount_create', params: { username: 'lostreply' } });
    pipeline.sim.faults.clear();

    expect(pipeline.sim.state().subAccounts.filter((s) => s.name === 'lostreply')).toHaveLength(1);
    // 40060 says the name exists, not whose it is: no endpoint can tell, so a person decides.
    expect(action.status).toBe('ambiguous');
    const requests = await requestsOf(action.id);
    expect(requests.map((r) => [r.purpose, r.status, r.errorCode])).toEqual([
      ['send', 'ambiguous', 'AMBIGUOUS_RESULT'],
      ['probe', 'failed', '40060'],
    ]);
    expect(requestsTo(pipeline, PATHS.createSub).map((r) => r.code)).toEqual([null, '40060']);
    expect(action.resolution).toMatch(/request 1 \(createSub\) lost its answer/);
    expect(action.resolution).toMatch(/no endpoint of the API lists sub-accounts/);
    expect(action.resolution).toMatch(/request 2 \(probe\) answered 40060/);
    expect(action.resolution).toMatch(/does not prove the lost request created it/);
    expect(await db.prisma.subAccount.count({ where: { nameKey: 'lostreply' } })).toBe(0);
    expect(action.result).toMatchObject({ subAccount: null });
  });

  it('create-sub: a lost answer for a name another account holds is not recorded as ours', async () => {
    const sim = pipeline.sim.context;
    const other = sim.createAccount({ unifiedManagement: true }).account;
    sim.accounts.createSub(other, 'othersname', '', sim.clock.now());
    pipeline.sim.requestLog.clear();
    pipeline.sim.faults.set({ applyThenReset: { path: PATHS.createSub, count: 1 } });
    const action = await runToEnd(pipeline, { command: 'subaccount_create', params: { username: 'othersname' } });
    pipeline.sim.faults.clear();

    // The first answer (a 40060 as well) was cut off before it reached us.
    expect(requestsTo(pipeline, PATHS.createSub).map((r) => r.code)).toEqual([null, '40060']);
    expect(pipeline.sim.state().subAccounts.filter((s) => s.name === 'othersname')).toHaveLength(0);
    expect(action.status).toBe('ambiguous');
    expect(await db.prisma.subAccount.count({ where: { nameKey: 'othersname' } })).toBe(0);
  });

  it('create-sub: when the lost request had not landed, the probe creates it (still exactly one)', async () => {
    pipeline.sim.requestLog.clear();
    // The first attempt is reset before it is applied: a fault that drops the connection unanswered.
    pipeline.sim.faults.set({ reset: 1, paths: [PATHS.createSub] });
    const pending = runToEnd(pipeline, { command: 'subaccount_create', params: { username: 'neverlanded' } });
    // Let the first request go out and be dropped, then stop dropping.
    for (const deadline = Date.now() + 20_000; Date.now() < deadline;) {
      if (requestsTo(pipeline, PATHS.createSub).length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    pipeline.sim.faults.clear();
    const action = await pending;
    expect(pipeline.sim.state().subAccounts.filter((s) => s.name === 'neverlanded')).toHaveLength(1);
    expect(action.status).toBe('succeeded');
    const requests = (await requestsOf(action.id)).map((r) => [r.purpose, r.status]);
    // The send lost its answer; probes follow until one is answered (on a loaded machine the fault
    // may still catch a probe before the test lifts it: that probe is ambiguous too, never a blind retry).
    expect(requests[0]).toEqual(['send', 'ambiguous']);
    expect(requests.at(-1)).toEqual(['probe', 'succeeded']);
    expect(requests.slice(1, -1).every(([purpose, status]) => purpose === 'probe' && status === 'ambiguous')).toBe(
      true,
    );
    expect(action.resolution).toMatch(/the lost request had not taken effect and the probe created it/);
    const mirror = await db.prisma.subAccount.findFirstOrThrow({ where: { nameKey: 'neverlanded' } });
    expect(mirror.subUid).toBe(pipeline.sim.state().subAccounts.find((s) => s.name === 'neverlanded')!.uid);
  });

  it('batch create: a 40060 probe after a lost batch ends the action ambiguous; nothing more is sent', async () => {
    pipeline.sim.requestLog.clear();
    const names = Array.from({ length: 7 }, (_, k) => subName(5000 + k * 17));
    pipeline.sim.faults.set({ applyThenReset: { path: PATHS.batchCreate, count: 1 } });
    const action = await runToEnd(pipeline, {
      command: 'subaccount_batch_create',
      params: {
        items: names.map((name) => ({
          subAccountName: name,
          passphrase: 'Lost2026ab',
          label: 'x',
          permList: ['read'],
        })),
      },
    });
    pipeline.sim.faults.clear();
    // The lost batch landed (all or nothing); the second chunk is never sent.
    const onExchange = pipeline.sim.state().subAccounts.filter((s) => names.includes(s.name));
    expect(onExchange.map((s) => s.name).sort()).toEqual(names.slice(0, 5).sort());
    expect(action.status).toBe('ambiguous');
    const requests = await requestsOf(action.id);
    expect(requests.map((r) => [r.step, r.purpose, r.status, r.errorCode])).toEqual([
      ['chunk-0', 'send', 'ambiguous', 'AMBIGUOUS_RESULT'],
      ['chunk-0', 'probe', 'failed', '40060'],
    ]);
    expect(action.resolution).toMatch(/a name of this batch exists now/);
    expect(await db.prisma.subAccount.count({ where: { createdByActionId: action.id } })).toBe(0);
    // The lost batch's names are unknown (here the exchange holds them); the unsent chunk's were not created.
    expect(action.result).toEqual({ created: [], unknown: names.slice(0, 5), notCreated: names.slice(5) });
  });

  it('create API key: no endpoint can tell, so nothing is repeated: exactly one key and an ambiguous audit row', async () => {
    const sub = pipeline.sim.state().subAccounts.find((s) => s.name === 'neverlanded')!;
    pipeline.sim.requestLog.clear();
    pipeline.sim.faults.set({ applyThenReset: { path: PATHS.createKey, count: 1 } });
    const action = await runToEnd(pipeline, {
      command: 'apikey_create',
      params: { subAccountUid: sub.uid, passphrase: 'Lost2026ab', label: 'lost', permList: ['read'] },
    });
    pipeline.sim.faults.clear();
    expect(pipeline.sim.state().subAccounts.find((s) => s.uid === sub.uid)!.apiKeys).toHaveLength(1);
    expect(requestsTo(pipeline, PATHS.createKey)).toHaveLength(1);
    expect(action.status).toBe('ambiguous');
    expect(action.resolution).toMatch(/no endpoint that lists a sub-account's keys/);
    expect(action.resolution).toMatch(/nothing was repeated/);
    expect((await requestsOf(action.id)).map((r) => r.status)).toEqual(['ambiguous']);
    expect(await db.prisma.subAccountApiKey.count({ where: { subAccountUid: sub.uid } })).toBe(0);
    expect(action.secretsEnc).toBeNull();
  });

  it('modify: idempotent, so it is sent again and the second answer settles it', async () => {
    const sub = pipeline.sim.state().subAccounts.find((s) => s.name === 'neverlanded')!;
    const key = sub.apiKeys[0]!;
    pipeline.sim.faults.set({ applyThenReset: { path: PATHS.modifyKey, count: 1 } });
    const action = await runToEnd(pipeline, {
      command: 'apikey_modify',
      params: {
        subAccountUid: sub.uid,
        subAccountApiKey: key.apiKey,
        passphrase: 'Lost2026ab',
        label: 'after',
        ipList: [],
      },
    });
    pipeline.sim.faults.clear();
    expect(action.status).toBe('succeeded');
    expect((await requestsOf(action.id)).map((r) => [r.purpose, r.status])).toEqual([
      ['send', 'ambiguous'],
      ['repeat', 'succeeded'],
    ]);
    expect(action.resolution).toMatch(/sending it again cannot change anything twice/);
    expect(pipeline.sim.state().subAccounts.find((s) => s.uid === sub.uid)!.apiKeys[0]!.label).toBe('after');
  });
});
