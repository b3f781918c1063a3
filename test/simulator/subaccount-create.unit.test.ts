import { describe, expect, it } from 'vitest';

import { get, NOW, outcome, PATHS, post, useSimulator } from './support/fixture.ts';

const ctx = useSimulator();
let counter = 0;

/** A fresh main account with every capability, so each test has its own 20-sub budget. */
function freshMain() {
  return ctx.sim.createAccount({ unifiedManagement: true, uta: true });
}

function letters(n: number): string {
  // Distinct 8-letter names from a counter: a..z digits of the counter.
  let value = n;
  let out = '';
  for (let i = 0; i < 8; i++) {
    out = String.fromCharCode(97 + (value % 26)) + out;
    value = Math.floor(value / 26);
  }
  return out;
}

const item = (extra: Record<string, unknown> = {}) => ({
  subAccountName: letters(++counter * 7919),
  passphrase: 'Batch1234',
  label: 'batch',
  permList: ['read', 'spot_trade'],
  ipList: ['127.0.0.1'],
  ...extra,
});

interface BatchItem {
  subAccountUid: string;
  subAccountName: string;
  subAccountApiKey: string;
  secretKey: string;
  permList: string[];
  ipList: string[];
  label: string;
}

describe('batch-create-subaccount-and-apikey', () => {
  it('creates sub-accounts with keys that can sign', async () => {
    const main = freshMain();
    const res = await post<BatchItem[]>(ctx.sim, PATHS.batchCreate, [item(), item()], main);
    expect(outcome(res)).toEqual({ status: 200, code: '00000', msg: 'success' });
    expect(res.json.data).toHaveLength(2);
    const first = res.json.data[0]!;
    expect(Object.keys(first).sort()).toEqual(
      ['subAccountUid', 'subAccountName', 'label', 'subAccountApiKey', 'secretKey', 'permList', 'ipList'].sort(),
    );
    expect(ctx.sim.state(main.uid).subAccounts.map((s) => s.uid)).toEqual(res.json.data.map((d) => d.subAccountUid));
    const signed = await get(
      ctx.sim,
      PATHS.spot,
      {},
      {
        apiKey: first.subAccountApiKey,
        secretKey: first.secretKey,
        passphrase: 'Batch1234',
      },
    );
    expect(signed.status).toBe(200);
  });

  it('is all or nothing: one bad item rejects the request and creates nothing', async () => {
    const main = freshMain();
    const res = await post(ctx.sim, PATHS.batchCreate, [item(), item({ passphrase: 'nodigits' })], main);
    expect(res.json.code).toBe('40070');
    expect(ctx.sim.state(main.uid).subAccounts).toEqual([]);
  });

  it.each([
    [() => [item({ subAccountName: 'abc' })], '40055', 'subName must be an English letter with a length of 8'],
    [() => [item({ subAccountName: 'abcdefg1' })], '40055', 'subName must be an English letter with a length of 8'],
    [() => [item({ label: 'z'.repeat(21) })], '40056', 'remark must be length of 1 ~ 20'],
    [() => [item({ permList: ['transfer'] })], '40020', 'Parameter permList error'],
    [() => [item({ permList: undefined })], '40019', 'Parameter permList cannot be empty'],
    [() => [item({ subAccountName: undefined })], '40019', 'Parameter subAccountName cannot be empty'],
    [() => [item({ ipList: ['1.2.3.4.5'] })], '40020', 'Parameter ipList error'],
    [() => Array.from({ length: 6 }, () => item()), '40020', 'Parameter body error'],
    [() => [], '40019', 'Parameter body cannot be empty'],
    [() => item(), '40020', 'Parameter body error'],
    [
      () => [item({ subAccountName: 'dupdupdu' }), item({ subAccountName: 'DUPDUPDU' })],
      '40071',
      'subName exist duplication',
    ],
  ])('rejects case %# with %s', async (body, code, msg) => {
    const res = await post(ctx.sim, PATHS.batchCreate, body(), freshMain());
    expect(outcome(res)).toEqual({ status: 400, code, msg });
  });

  it('a name already taken is 40060', async () => {
    const taken = item();
    expect((await post(ctx.sim, PATHS.batchCreate, [taken], freshMain())).status).toBe(200);
    const res = await post(ctx.sim, PATHS.batchCreate, [{ ...taken }], freshMain());
    expect(outcome(res)).toEqual({ status: 400, code: '40060', msg: 'subNames already exists' });
  });

  it('more than 20 sub-accounts is 40069', async () => {
    const main = freshMain();
    for (let i = 0; i < 4; i++) {
      expect(
        (
          await post(
            ctx.sim,
            PATHS.batchCreate,
            Array.from({ length: 5 }, () => item()),
            main,
          )
        ).status,
      ).toBe(200);
    }
    const res = await post(ctx.sim, PATHS.batchCreate, [item()], main);
    expect(outcome(res)).toEqual({
      status: 400,
      code: '40069',
      msg: 'The maximum number of sub-accounts created has been reached',
    });
  });

  it('needs an IP-bound key (22010)', async () => {
    const res = await post(ctx.sim, PATHS.batchCreate, [item()], ctx.sim.createAccount({ ipList: [] }));
    expect(res.json.code).toBe('22010');
  });
});

describe('create-sub', () => {
  it('creates a unified virtual sub-account', async () => {
    const main = freshMain();
    const res = await post<Record<string, string>>(
      ctx.sim,
      PATHS.createSub,
      { username: 'alice', note: 'books' },
      main,
    );
    expect(outcome(res)).toEqual({ status: 200, code: '00000', msg: 'success' });
    const data = res.json.data;
    expect(data).toMatchObject({ status: 'normal', note: 'books', createdTime: String(NOW), updatedTime: String(NOW) });
    expect(data.username).toMatch(/^alice.*@/);
    expect(ctx.sim.state(main.uid).subAccounts.map((s) => s.uid)).toEqual([data.subUid]);
    const unified = await post(ctx.sim, PATHS.createSub, { username: 'bob', accountMode: 'unified' }, main);
    expect(unified.status).toBe(200);
  });

  it.each([
    [{ username: 'Alice' }, '40020', 'Parameter username error'],
    [{ username: 'a'.repeat(21) }, '40020', 'Parameter username error'],
    [{}, '40019', 'Parameter username cannot be empty'],
    [{ username: 'carol', accountMode: 'classic' }, '40020', 'Parameter accountMode error'],
    [{ username: 'dave', note: 'n'.repeat(51) }, '40020', 'Parameter note error'],
  ])('rejects %j with %s', async (body, code, msg) => {
    const res = await post(ctx.sim, PATHS.createSub, body, freshMain());
    expect(outcome(res)).toEqual({ status: 400, code, msg });
  });

  it('a taken username is 40060; more than 20 sub-accounts is 40069', async () => {
    const main = freshMain();
    expect((await post(ctx.sim, PATHS.createSub, { username: 'erin' }, main)).status).toBe(200);
    expect((await post(ctx.sim, PATHS.createSub, { username: 'erin' }, main)).json.code).toBe('40060');
    for (let i = 1; i < 20; i++) {
      expect((await post(ctx.sim, PATHS.createSub, { username: `erin${letters(i)}` }, main)).status).toBe(200);
    }
    const res = await post(ctx.sim, PATHS.createSub, { username: 'erinextra' }, main);
    expect(res.json.code).toBe('40069');
  });

  it('needs the unified-account management permission (40014)', async () => {
    const res = await post(
      ctx.sim,
      PATHS.createSub,
      { username: 'frank' },
      ctx.sim.createAccount({ unifiedManagement: false }),
    );
    expect(outcome(res)).toEqual({
      status: 400,
      code: '40014',
      msg: 'Incorrect permissions, need unified account management read-write permissions',
    });
  });
});
