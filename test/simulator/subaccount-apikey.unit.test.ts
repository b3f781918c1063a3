import { describe, expect, it } from 'vitest';

import { get, outcome, PATHS, post, useSimulator } from './support/fixture.ts';

const ctx = useSimulator();

interface KeyData {
  subAccountUid: string;
  label: string;
  subAccountApiKey: string;
  secretKey: string;
  permList: string[];
  ipList: string[];
}

function newSub(): string {
  const res = ctx.sim.context.accounts.createSub(
    ctx.sim.context.demo.account,
    ctx.sim.context.accounts.freshName(),
    '',
    0,
  );
  return res.uid;
}

const valid = (subAccountUid: string, extra: Record<string, unknown> = {}) => ({
  subAccountUid,
  passphrase: 'Passw0rdOk',
  label: 'ingest',
  permList: ['read'],
  ipList: ['127.0.0.1'],
  ...extra,
});

describe('create-virtual-subaccount-apikey', () => {
  it('creates a key that can sign afterwards, with exactly its permissions and IPs', async () => {
    const subUid = newSub();
    const res = await post<KeyData>(ctx.sim, PATHS.createKey, valid(subUid));
    expect(outcome(res)).toEqual({ status: 200, code: '00000', msg: 'success' });
    const key = res.json.data;
    expect(key).toMatchObject({ subAccountUid: subUid, label: 'ingest', permList: ['read'], ipList: ['127.0.0.1'] });
    const credentials = { apiKey: key.subAccountApiKey, secretKey: key.secretKey, passphrase: 'Passw0rdOk' };
    expect((await get(ctx.sim, PATHS.spot, {}, credentials)).status).toBe(200);
    const cancel = await post(
      ctx.sim,
      PATHS.batchCancel,
      { symbol: 'BTCUSDT', orderList: [{ orderId: '1' }] },
      credentials,
    );
    expect(outcome(cancel)).toEqual({
      status: 400,
      code: '40014',
      msg: 'Incorrect permissions, need spot_trade permissions',
    });
    const listed = ctx.sim.state().subAccounts.find((s) => s.uid === subUid)!;
    expect(listed.apiKeys.map((k) => k.apiKey)).toEqual([key.subAccountApiKey]);
    expect(listed.apiKeys[0]).not.toHaveProperty('secretKey');
  });

  it('a created key bound to another IP is refused with 40018', async () => {
    const res = await post<KeyData>(ctx.sim, PATHS.createKey, valid(newSub(), { ipList: ['203.0.113.9'] }));
    const key = res.json.data;
    const call = await get(
      ctx.sim,
      PATHS.spot,
      {},
      {
        apiKey: key.subAccountApiKey,
        secretKey: key.secretKey,
        passphrase: 'Passw0rdOk',
      },
    );
    expect(call.json.code).toBe('40018');
  });

  it('at most 10 keys per sub-account (40063)', async () => {
    const subUid = newSub();
    for (let i = 0; i < 10; i++) expect((await post(ctx.sim, PATHS.createKey, valid(subUid))).status).toBe(200);
    const res = await post(ctx.sim, PATHS.createKey, valid(subUid));
    expect(outcome(res)).toEqual({ status: 400, code: '40063', msg: 'API exceeds the maximum limit added' });
  });

  it.each([
    [{ passphrase: 'short1' }, '40070', 'passphrase 8-32 characters with letters and numbers'],
    [{ passphrase: 'onlyletters' }, '40070', 'passphrase 8-32 characters with letters and numbers'],
    [{ passphrase: undefined }, '40019', 'Parameter passphrase cannot be empty'],
    [{ label: 'x'.repeat(21) }, '40056', 'remark must be length of 1 ~ 20'],
    [{ label: '' }, '40056', 'remark must be length of 1 ~ 20'],
    [{ label: undefined }, '40019', 'Parameter label cannot be empty'],
    [{ ipList: Array.from({ length: 31 }, (_, i) => `10.0.0.${i}`) }, '40020', 'Parameter ipList error'],
    [{ ipList: ['not-an-ip'] }, '40020', 'Parameter ipList error'],
    [{ permList: ['withdraw'] }, '40020', 'Parameter permList error'],
    [{ permList: undefined }, '40019', 'Parameter permList cannot be empty'],
    [{ subAccountUid: undefined }, '40019', 'Parameter subAccountUid cannot be empty'],
    [{ subAccountUid: '1234567890' }, '40028', 'This subUid does not belong to this account'],
  ])('rejects %j with %s', async (change, code, msg) => {
    const res = await post(ctx.sim, PATHS.createKey, valid(newSub(), change));
    expect(outcome(res)).toEqual({ status: 400, code, msg });
  });

  it("another main account's sub-account is 40028", async () => {
    const other = ctx.sim.createAccount({});
    const res = await post(ctx.sim, PATHS.createKey, valid(newSub()), other);
    expect(res.json.code).toBe('40028');
  });

  it('needs a main-account key (40014) bound to an IP (22010)', async () => {
    const unbound = ctx.sim.createAccount({ ipList: [] });
    expect(outcome(await post(ctx.sim, PATHS.createKey, valid(newSub()), unbound))).toEqual({
      status: 400,
      code: '22010',
      msg: 'Please bind ip whitelist address',
    });
    const created = (await post<KeyData>(ctx.sim, PATHS.createKey, valid(newSub()))).json.data;
    const subKey = { apiKey: created.subAccountApiKey, secretKey: created.secretKey, passphrase: 'Passw0rdOk' };
    expect(outcome(await post(ctx.sim, PATHS.createKey, valid(newSub()), subKey))).toEqual({
      status: 400,
      code: '40014',
      msg: 'Incorrect permissions, need main account permissions',
    });
  });
});

describe('modify-virtual-subaccount-apikey', () => {
  async function createdKey() {
    const subUid = newSub();
    const key = (await post<KeyData>(ctx.sim, PATHS.createKey, valid(subUid, { permList: ['read', 'spot_trade'] })))
      .json.data;
    return {
      subUid,
      key,
      credentials: { apiKey: key.subAccountApiKey, secretKey: key.secretKey, passphrase: 'Passw0rdOk' },
    };
  }

  it('changes label, ipList and permList; later calls see the change', async () => {
    const { subUid, key, credentials } = await createdKey();
    const res = await post<KeyData>(ctx.sim, PATHS.modifyKey, {
      subAccountUid: subUid,
      subAccountApiKey: key.subAccountApiKey,
      passphrase: 'Passw0rdOk',
      label: 'renamed',
      permList: ['spot_trade'],
      ipList: ['::1', '127.0.0.1'],
    });
    expect(res.json.data).toMatchObject({ label: 'renamed', permList: ['spot_trade'], secretKey: key.secretKey });
    expect((await get(ctx.sim, PATHS.spot, {}, credentials)).json.code).toBe('40014');
  });

  it('an absent permList keeps the permissions, an empty one removes them; an absent ipList empties the whitelist', async () => {
    const { subUid, key, credentials } = await createdKey();
    const base = {
      subAccountUid: subUid,
      subAccountApiKey: key.subAccountApiKey,
      passphrase: 'Passw0rdOk',
      label: 'a',
    };
    const kept = await post<KeyData>(ctx.sim, PATHS.modifyKey, base);
    expect(kept.json.data.permList).toEqual(['read', 'spot_trade']);
    expect(kept.json.data.ipList).toEqual([]);
    const removed = await post<KeyData>(ctx.sim, PATHS.modifyKey, { ...base, permList: [] });
    expect(removed.json.data.permList).toEqual([]);
    expect((await get(ctx.sim, PATHS.spot, {}, credentials)).json.code).toBe('40014');
  });

  it.each([
    [{ subAccountApiKey: 'bg_nope' }, '40065', 'This subApikey does not exist'],
    [{ passphrase: 'Other1234' }, '40012', 'apikey/password is incorrect'],
    [{ passphrase: 'bad' }, '40070', 'passphrase 8-32 characters with letters and numbers'],
    [{ label: 'y'.repeat(21) }, '40056', 'remark must be length of 1 ~ 20'],
    [{ subAccountUid: '1111111111' }, '40028', 'This subUid does not belong to this account'],
    [{ subAccountApiKey: undefined }, '40019', 'Parameter subAccountApiKey cannot be empty'],
  ])('rejects %j with %s', async (change, code, msg) => {
    const { subUid, key } = await createdKey();
    const res = await post(ctx.sim, PATHS.modifyKey, {
      subAccountUid: subUid,
      subAccountApiKey: key.subAccountApiKey,
      passphrase: 'Passw0rdOk',
      label: 'a',
      ...change,
    });
    expect(outcome(res)).toEqual({ status: 400, code, msg });
  });
});
