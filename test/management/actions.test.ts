import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { SecretBox } from '../../src/crypto/secret-box.ts';
import { SecretUnavailableError } from '../../src/management/errors.ts';
import { revealSecret } from '../../src/management/mirror-store.ts';
import { type Pipeline, startPipeline } from '../helpers/pipeline.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { PATHS, requestsTo, runToEnd, subName } from './support.ts';

const db = useTestDatabase('mgmtactions');
let pipeline: Pipeline;
let box: SecretBox;

beforeAll(async () => {
  pipeline = await startPipeline({ databaseUrl: db.url });
  pipeline.startWorkers();
  box = new SecretBox(pipeline.runtime.config.masterKey);
});
afterAll(async () => {
  await pipeline?.close();
});

/**
 * A virtual sub-account of its own with one read-only key, made through the actions themselves,
 * for a test that works on a key: no test depends on what another left behind, so the tests run
 * in any order. Names are distinct per test (they are global on the exchange, and the same
 * parameters would name the same action).
 */
async function subAccountWithKey(username: string): Promise<{ subUid: string; apiKey: string }> {
  const sub = await runToEnd(pipeline, { command: 'subaccount_create', params: { username } });
  expect(sub.status).toBe('succeeded');
  const { subUid } = (sub.result as { subAccount: { subUid: string } }).subAccount;
  const key = await runToEnd(pipeline, {
    command: 'apikey_create',
    params: { subAccountUid: subUid, passphrase: 'Desk2026pass', label: 'reader', permList: ['read'] },
  });
  expect(key.status).toBe('succeeded');
  const { apiKey } = (key.result as { apiKey: { apiKey: string } }).apiKey;
  return { subUid, apiKey };
}

describe('management actions against the simulator', () => {
  it('creates a sub-account (v3): the simulator has it, the mirror and the audit row record it', async () => {
    const action = await runToEnd(pipeline, {
      command: 'subaccount_create',
      params: { username: 'ledgerdesk', note: 'tax desk' },
    });
    expect(action.status).toBe('succeeded');
    const sub = pipeline.sim.state().subAccounts.find((s) => s.name === 'ledgerdesk');
    expect(sub).toBeDefined();
    const subUid = sub!.uid;
    expect(action.result).toMatchObject({
      subAccount: { name: 'ledgerdesk', subUid, status: 'normal', note: 'tax desk' },
    });
    const mirror = await db.prisma.subAccount.findFirstOrThrow({ where: { subUid } });
    expect(mirror).toMatchObject({ name: 'ledgerdesk', source: 'create_sub', email: sub!.email });
    const requests = await db.prisma.managementRequest.findMany({ where: { actionId: action.id } });
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ purpose: 'send', status: 'succeeded', endpoint: 'createSub' });
    expect(requests[0]!.body).toEqual({ username: 'ledgerdesk', note: 'tax desk' });
    expect(action.finishedAt!.getTime()).toBeGreaterThanOrEqual(requests[0]!.answeredAt!.getTime());
    expect(action.createdAt.getTime()).toBeLessThanOrEqual(requests[0]!.sentAt.getTime());
  });

  it('creates an API key on a sub-account: the secret is only sealed, shown once, then gone', async () => {
    const sub = await runToEnd(pipeline, { command: 'subaccount_create', params: { username: 'keydesk' } });
    expect(sub.status).toBe('succeeded');
    const { subUid } = (sub.result as { subAccount: { subUid: string } }).subAccount;
    const action = await runToEnd(pipeline, {
      command: 'apikey_create',
      params: {
        subAccountUid: subUid,
        passphrase: 'Desk2026pass',
        label: 'reader',
        permList: ['read'],
        ipList: ['10.0.0.1'],
      },
    });
    expect(action.status).toBe('succeeded');
    const onExchange = pipeline.sim.state().subAccounts.find((s) => s.uid === subUid)!.apiKeys;
    expect(onExchange).toHaveLength(1);
    const apiKey = onExchange[0]!.apiKey;
    expect(onExchange[0]).toMatchObject({ label: 'reader', permList: ['read'], ipList: ['10.0.0.1'] });
    expect(action.result).toMatchObject({ apiKey: { apiKey, subAccountUid: subUid, label: 'reader' } });
    expect(action.parameters).toMatchObject({ passphrase: '[redacted]' });
    expect(action.secretsEnc).toBeNull();
    const request = await db.prisma.managementRequest.findFirstOrThrow({ where: { actionId: action.id } });
    expect(request.body).toMatchObject({ passphrase: '[redacted]' });
    expect(request.response).toMatchObject({ secretKey: '[sealed]', subAccountApiKey: apiKey });

    const secret = pipeline.sim.context.accounts.key(apiKey)!.secretKey;
    const row = await db.prisma.subAccountApiKey.findFirstOrThrow({ where: { apiKey } });
    expect(row.secretEnc).not.toContain(secret);
    expect(await revealSecret(db.prisma, box, pipeline.accountId, apiKey)).toBe(secret);
    await expect(revealSecret(db.prisma, box, pipeline.accountId, apiKey)).rejects.toBeInstanceOf(
      SecretUnavailableError,
    );
    const after = await db.prisma.subAccountApiKey.findFirstOrThrow({ where: { apiKey } });
    expect(after.secretEnc).toBeNull();
    expect(after.secretRevealedAt).not.toBeNull();
  });

  it('modifies a key: permList absent keeps the permissions, empty removes them', async () => {
    const { subUid, apiKey } = await subAccountWithKey('modifydesk');
    // Its secret already shown once, as an operator would have.
    await revealSecret(db.prisma, box, pipeline.accountId, apiKey);
    const keep = await runToEnd(pipeline, {
      command: 'apikey_modify',
      params: {
        subAccountUid: subUid,
        subAccountApiKey: apiKey,
        passphrase: 'Desk2026pass',
        label: 'renamed',
        ipList: ['10.0.0.2'],
      },
    });
    expect(keep.status).toBe('succeeded');
    const key = () => pipeline.sim.state().subAccounts.find((s) => s.uid === subUid)!.apiKeys[0]!;
    expect(key()).toMatchObject({ label: 'renamed', permList: ['read'], ipList: ['10.0.0.2'] });
    const remove = await runToEnd(pipeline, {
      command: 'apikey_modify',
      params: {
        subAccountUid: subUid,
        subAccountApiKey: apiKey,
        passphrase: 'Desk2026pass',
        label: 'renamed',
        ipList: ['10.0.0.2'],
        permList: [],
      },
    });
    expect(remove.status).toBe('succeeded');
    expect(key().permList).toEqual([]);
    const mirror = await db.prisma.subAccountApiKey.findFirstOrThrow({ where: { apiKey } });
    expect(mirror).toMatchObject({ label: 'renamed', permList: [], ipList: ['10.0.0.2'] });
    // A modify answer carries the secret again; a secret once shown is not stored again.
    expect(mirror.secretEnc).toBeNull();
  });

  it('batch-creates 7 sub-accounts with keys in requests of at most 5', async () => {
    pipeline.sim.requestLog.clear();
    const names = Array.from({ length: 7 }, (_, k) => subName(1000 + k * 31));
    const action = await runToEnd(pipeline, {
      command: 'subaccount_batch_create',
      params: {
        items: names.map((name) => ({
          subAccountName: name,
          passphrase: 'Batch2026x',
          label: `l-${name}`,
          permList: ['read'],
        })),
      },
    });
    expect(action.status).toBe('succeeded');
    expect(requestsTo(pipeline, PATHS.batchCreate)).toHaveLength(2);
    const requests = await db.prisma.managementRequest.findMany({
      where: { actionId: action.id },
      orderBy: { seq: 'asc' },
    });
    expect(requests.map((r) => (r.body as unknown[]).length)).toEqual([5, 2]);
    const onExchange = pipeline.sim.state().subAccounts.filter((s) => names.includes(s.name));
    expect(onExchange).toHaveLength(7);
    expect(onExchange.every((s) => s.apiKeys.length === 1)).toBe(true);
    const keys = await db.prisma.subAccountApiKey.findMany({ where: { createdByActionId: action.id } });
    expect(keys.map((k) => k.apiKey).sort()).toEqual(onExchange.map((s) => s.apiKeys[0]!.apiKey).sort());
    expect(keys.every((k) => k.secretEnc !== null)).toBe(true);
    expect((action.result as { created: unknown[] }).created).toHaveLength(7);
  });

  it('cancels all orders of a category and symbol, one outcome row per order', async () => {
    pipeline.sim.placeOrders([
      { category: 'SPOT', symbol: 'SOLUSDT', orderId: 'ca-1' },
      { category: 'SPOT', symbol: 'SOLUSDT', orderId: 'ca-2', stuck: true },
      { category: 'SPOT', symbol: 'XRPUSDT', orderId: 'ca-3' },
    ]);
    const action = await runToEnd(pipeline, {
      command: 'orders_cancel_all',
      params: { category: 'SPOT', symbol: 'SOLUSDT' },
    });
    // ca-2 could not be cancelled and is still open on the exchange: not stored succeeded.
    expect(action.status).toBe('partial');
    const open = pipeline.sim.state().openOrders.filter((o) => o.category === 'SPOT');
    expect(open.filter((o) => o.symbol === 'SOLUSDT').map((o) => o.orderId)).toEqual(['ca-2']);
    expect(open.some((o) => o.orderId === 'ca-3')).toBe(true);
    const rows = await db.prisma.orderCancelOutcome.findMany({ where: { actionId: action.id } });
    expect(rows.find((r) => r.orderId === 'ca-1')).toMatchObject({ result: 'cancelled', symbol: 'SOLUSDT' });
    expect(rows.find((r) => r.orderId === 'ca-2')).toMatchObject({
      result: 'failed',
      errorCode: '24056',
      errorMsg: 'notExisted',
    });
    expect(action.result).toMatchObject({ orders: rows.length, failed: 1, cancelled: rows.length - 1 });
  });

  it('cancels all orders of a whole category', async () => {
    pipeline.sim.placeOrders([
      { category: 'USDT-FUTURES', symbol: 'BTCUSDT', orderId: 'wc-1' },
      { category: 'USDT-FUTURES', symbol: 'ETHUSDT', orderId: 'wc-2' },
    ]);
    const before = pipeline.sim.state().openOrders.filter((o) => o.category === 'USDT-FUTURES');
    expect(before.length).toBeGreaterThan(0);
    const action = await runToEnd(pipeline, { command: 'orders_cancel_all', params: { category: 'USDT-FUTURES' } });
    expect(action.status).toBe('succeeded');
    expect(pipeline.sim.state().openOrders.filter((o) => o.category === 'USDT-FUTURES')).toEqual([]);
    expect(await db.prisma.orderCancelOutcome.count({ where: { actionId: action.id, result: 'cancelled' } })).toBe(
      before.length,
    );
  });

  it('running the same command again returns the earlier outcome and sends nothing', async () => {
    const first = await runToEnd(pipeline, {
      command: 'subaccount_create',
      params: { username: 'againdesk', note: 'tax desk' },
    });
    expect(first.status).toBe('succeeded');
    pipeline.sim.requestLog.clear();
    // The same command, its fields in another order and the default spelled out.
    const again = await runToEnd(pipeline, {
      command: 'subaccount_create',
      params: { note: 'tax desk', username: 'againdesk', accountMode: 'unified' },
    });
    expect(again.existing).toBe(true);
    expect(again.id).toBe(first.id);
    expect(again.status).toBe('succeeded');
    expect(pipeline.sim.requestLog.list()).toEqual([]);
    expect(pipeline.sim.state().subAccounts.filter((s) => s.name === 'againdesk')).toHaveLength(1);
  });

  it('runs a repeat-safe command again once its earlier run has ended: a cancel-all from cron, a label set back', async () => {
    pipeline.sim.placeOrders([{ category: 'SPOT', symbol: 'DOGEUSDT', orderId: 'rs-1' }]);
    const command = {
      command: 'orders_cancel_all' as const,
      params: { category: 'SPOT' as const, symbol: 'DOGEUSDT' },
    };
    const first = await runToEnd(pipeline, command);
    expect(first.status).toBe('succeeded');
    // The ended action keeps its key with its id appended: still unique, still traceable.
    expect(first.idempotencyKey).toMatch(new RegExp(`^derived:orders_cancel_all:[0-9a-f]{64}@${first.id}$`));

    pipeline.sim.placeOrders([{ category: 'SPOT', symbol: 'DOGEUSDT', orderId: 'rs-2' }]);
    const second = await runToEnd(pipeline, command);
    expect(second).toMatchObject({ existing: false, status: 'succeeded' });
    expect(second.id).not.toBe(first.id);
    expect(pipeline.sim.state().openOrders.some((o) => o.orderId === 'rs-2')).toBe(false);

    const { subUid, apiKey } = await subAccountWithKey('repeatdesk');
    const modify = (label: string) => ({
      command: 'apikey_modify' as const,
      params: {
        subAccountUid: subUid,
        subAccountApiKey: apiKey,
        passphrase: 'Desk2026pass',
        label,
        ipList: [],
      },
    });
    const labels = [];
    for (const label of ['alpha', 'beta', 'alpha']) {
      const action = await runToEnd(pipeline, modify(label));
      expect(action).toMatchObject({ existing: false, status: 'succeeded' });
      labels.push(pipeline.sim.state().subAccounts.find((s) => s.uid === subUid)!.apiKeys[0]!.label);
    }
    expect(labels).toEqual(['alpha', 'beta', 'alpha']);
  });
});

describe('caller-supplied idempotency keys', () => {
  it('the same key runs once; the same key for a different command is refused before anything is recorded', async () => {
    const first = await runToEnd(
      pipeline,
      { command: 'orders_cancel_all', params: { category: 'COIN-FUTURES' } },
      { idempotencyKey: 'nightly-2026-11-22' },
    );
    expect(first.status).toBe('succeeded');
    pipeline.sim.requestLog.clear();
    const again = await runToEnd(
      pipeline,
      { command: 'orders_cancel_all', params: { category: 'COIN-FUTURES' } },
      { idempotencyKey: 'nightly-2026-11-22' },
    );
    expect(again).toMatchObject({ id: first.id, existing: true });
    expect(pipeline.sim.requestLog.list()).toEqual([]);
    const count = await db.prisma.managementAction.count();
    await expect(
      runToEnd(
        pipeline,
        { command: 'orders_cancel_all', params: { category: 'SPOT' } },
        { idempotencyKey: 'nightly-2026-11-22' },
      ),
    ).rejects.toThrow(/^--idempotency-key: is already used by a different orders_cancel_all action; choose a new key/);
    expect(await db.prisma.managementAction.count()).toBe(count);
    expect(pipeline.sim.requestLog.list()).toEqual([]);
  });
});
