import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { prepareAction, submitAction } from '../../src/app/services/submit-action.ts';
import { SecretBox } from '../../src/crypto/secret-box.ts';
import { createRootLogger } from '../../src/logging/logger.ts';
import { type ActionInput, redactInput, splitSecrets } from '../../src/management/action-input.ts';
import { recordAction } from '../../src/management/action-store.ts';
import { LimitReachedError } from '../../src/management/errors.ts';
import { runAction } from '../../src/management/run-action.ts';
import { type Pipeline, startPipeline } from '../helpers/pipeline.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { runToEnd, subName } from './support.ts';

const db = useTestDatabase('mgmtlimits');
let pipeline: Pipeline;

beforeAll(async () => {
  pipeline = await startPipeline({ databaseUrl: db.url });
  pipeline.startWorkers();
  // A main account with no sub-accounts yet, so the mirror knows every one it has.
  const fresh = pipeline.sim.createAccount({ unifiedManagement: true, uta: true });
  await pipeline.runtime.accounts.add({
    name: 'fresh',
    baseUrl: pipeline.sim.url,
    apiKey: fresh.apiKey,
    secretKey: fresh.secretKey,
    passphrase: fresh.passphrase,
    uid: fresh.uid,
    isBrokerParent: false,
    isUnifiedAccount: true,
  });
});
afterAll(async () => {
  await pipeline?.close();
});

describe('limits the local mirror knows are reached', () => {
  const names = Array.from({ length: 20 }, (_, k) => subName(9000 + k * 13));

  it('20 sub-accounts: the 21st is refused before any request', async () => {
    const filled = await runToEnd(
      pipeline,
      {
        command: 'subaccount_batch_create',
        params: {
          items: names.map((name) => ({
            subAccountName: name,
            passphrase: 'Limit2026a',
            label: name,
            permList: ['read'],
          })),
        },
      },
      { account: 'fresh' },
    );
    expect(filled.status).toBe('succeeded');
    const uid = (await pipeline.runtime.accounts.get('fresh')).uid;
    expect(pipeline.sim.state(uid).subAccounts).toHaveLength(20);

    pipeline.sim.requestLog.clear();
    const actionsBefore = await db.prisma.managementAction.count();
    const refused = await submitAction(pipeline.runtime, {
      account: 'fresh',
      input: { command: 'subaccount_create', params: { username: 'onetoomany' } },
    }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(LimitReachedError);
    expect((refused as Error).message).toBe(
      'sub-accounts: the exchange allows at most 20; the local mirror already holds 20, so 1 more would exceed it (nothing was sent)',
    );
    const batch = await prepareAction(pipeline.runtime, {
      account: 'fresh',
      input: {
        command: 'subaccount_batch_create',
        params: { items: [{ subAccountName: 'Tomanyab', passphrase: 'Limit2026a', label: 'x', permList: [] }] },
      },
    }).catch((error: unknown) => error);
    expect(batch).toBeInstanceOf(LimitReachedError);
    expect(pipeline.sim.requestLog.list()).toEqual([]);
    expect(await db.prisma.managementAction.count()).toBe(actionsBefore);
  });

  it('10 keys on one sub-account: the 11th is refused before any request', async () => {
    const uid = (await pipeline.runtime.accounts.get('fresh')).uid;
    const sub = pipeline.sim.state(uid).subAccounts[0]!;
    expect(sub.apiKeys).toHaveLength(1);
    for (let k = 1; k < 10; k++) {
      const created = await runToEnd(
        pipeline,
        {
          command: 'apikey_create',
          params: { subAccountUid: sub.uid, passphrase: 'Limit2026a', label: `k${k}`, permList: ['read'] },
        },
        { account: 'fresh' },
      );
      expect(created.status).toBe('succeeded');
    }
    expect(pipeline.sim.state(uid).subAccounts[0]!.apiKeys).toHaveLength(10);
    pipeline.sim.requestLog.clear();
    const refused = await submitAction(pipeline.runtime, {
      account: 'fresh',
      input: {
        command: 'apikey_create',
        params: { subAccountUid: sub.uid, passphrase: 'Limit2026a', label: 'k10', permList: ['read'] },
      },
    }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(LimitReachedError);
    expect((refused as Error).message).toMatch(
      new RegExp(
        `^API keys of sub-account ${sub.uid}: the exchange allows at most 10; the local mirror already holds 10`,
      ),
    );
    expect(pipeline.sim.requestLog.list()).toEqual([]);
  });

  it('a limit reached after the action was recorded is refused by the job itself, unsent', async () => {
    const uid = (await pipeline.runtime.accounts.get('fresh')).uid;
    const sub = pipeline.sim.state(uid).subAccounts[1]!;
    const account = await pipeline.runtime.accounts.get('fresh');
    const input: ActionInput = {
      command: 'apikey_create',
      params: { subAccountUid: sub.uid, passphrase: 'Limit2026a', label: 'late', permList: [] },
    };
    const box = new SecretBox(pipeline.runtime.config.masterKey);
    // Recorded while there was room (1 key)...
    const { action } = await recordAction(
      db.prisma,
      box,
      account.id,
      splitSecrets(input),
      'caller:late',
      redactInput(input),
    );
    // ...then, before it runs, the mirror learns of 9 more (keys whose answers were lost, say).
    const row = await db.prisma.subAccount.findFirstOrThrow({ where: { subUid: sub.uid } });
    await db.prisma.subAccount.update({ where: { id: row.id }, data: { keysWithoutId: 9 } });
    pipeline.sim.requestLog.clear();
    const log = createRootLogger({ level: 'silent' });
    const ended = await runAction(
      { prisma: db.prisma, pool: pipeline.runtime.pool, box, log, clients: pipeline.runtime.clients },
      action.id,
    );
    expect(ended.status).toBe('failed');
    expect(ended.error).toMatch(
      /^API keys of sub-account \d+: the exchange allows at most 10; the local mirror already holds 10/,
    );
    expect(await db.prisma.managementRequest.count({ where: { actionId: action.id } })).toBe(0);
    expect(pipeline.sim.requestLog.list()).toEqual([]);
    expect(pipeline.sim.state(uid).subAccounts[1]!.apiKeys).toHaveLength(1);
  });
});
