import { randomBytes, randomUUID } from 'node:crypto';

import pg from 'pg';
import { describe, expect, it } from 'vitest';

import { AccountExistsError, AccountInUseError, AccountNotFoundError } from '../../src/accounts/account-errors.ts';
import { AccountService } from '../../src/accounts/account-service.ts';
import { ValidationError } from '../../src/errors/index.ts';
import { SecretBoxError } from '../../src/errors/index.ts';
import { useTestDatabase } from '../helpers/test-database.ts';

const db = useTestDatabase('accounts');
const key = randomBytes(32);
const input = {
  name: 'main',
  baseUrl: 'http://127.0.0.1:8080',
  apiKey: 'bg_0123456789abcdef',
  secretKey: 'super-secret-value-42',
  passphrase: 'Passphrase123',
  uid: '4200001',
  isBrokerParent: true,
};

describe('AccountService', () => {
  it('stores secrets encrypted, lists keys masked, and decrypts credentials', async () => {
    const service = new AccountService(db.prisma, key);
    const added = await service.add(input);
    expect(added.apiKey).toBe('bg_0…cdef');

    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const row = await client.query('SELECT * FROM account WHERE id = $1', [added.id]);
    await client.end();
    const stored = JSON.stringify(row.rows[0]);
    expect(stored).not.toContain(input.secretKey);
    expect(stored).not.toContain(input.passphrase);

    expect((await service.list()).map((a) => a.apiKey)).toEqual(['bg_0…cdef']);
    const credentials = await service.credentials(added.id);
    expect(credentials).toMatchObject({
      secretKey: input.secretKey,
      passphrase: input.passphrase,
      isBrokerParent: true,
    });
  });

  it('fails loudly when the master key changed', async () => {
    const added = await new AccountService(db.prisma, key).add({ ...input, name: 'other' });
    await expect(new AccountService(db.prisma, randomBytes(32)).credentials(added.id)).rejects.toBeInstanceOf(
      SecretBoxError,
    );
  });

  it('rejects bad input naming the field, without echoing secrets', async () => {
    const service = new AccountService(db.prisma, key);
    await expect(service.add({ ...input, name: 'Bad Name' })).rejects.toThrow(/^name: /);
    await expect(service.add({ ...input, name: 'x1', baseUrl: 'ftp://h' })).rejects.toThrow(/baseUrl: must be an http/);
    await expect(service.add({ ...input, name: 'x2', uid: 'abc' })).rejects.toBeInstanceOf(ValidationError);
    const error = await service.add({ ...input, name: 'x3', secretKey: '' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).value).toBeUndefined();
    await expect(service.add(input)).rejects.toBeInstanceOf(AccountExistsError);
  });

  it('refuses to remove an account with history, removes one without', async () => {
    const service = new AccountService(db.prisma, key);
    const kept = await service.add({ ...input, name: 'kept' });
    await db.prisma.spotRecord.create({
      data: {
        accountId: kept.id,
        recordId: '1',
        coin: 'BTC',
        spotTaxType: 'Deposit',
        amount: '1',
        fee: '0',
        balance: '1',
        bizOrderId: 'b',
        ts: new Date(0),
        raw: {},
      },
    });
    await expect(service.remove('kept')).rejects.toBeInstanceOf(AccountInUseError);
    await service.add({ ...input, name: 'gone' });
    await service.remove('gone');
    await expect(service.get('gone')).rejects.toBeInstanceOf(AccountNotFoundError);
  });

  it('refuses to remove an account with a management audit trail or a reconciliation report, and the database agrees', async () => {
    const service = new AccountService(db.prisma, key);
    const managed = await service.add({ ...input, name: 'managed' });
    await db.prisma.managementAction.create({
      data: {
        id: randomUUID(),
        accountId: managed.id,
        command: 'subaccount_create',
        parameters: {},
        idempotencyKey: `test-${randomUUID()}`,
      },
    });
    const refused = await service.remove('managed').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AccountInUseError);
    expect((refused as Error).message).toContain('has 1 management record;');

    const reconciled = await service.add({ ...input, name: 'reconciled' });
    await db.prisma.reconciliationReport.create({
      data: {
        accountId: reconciled.id,
        recount: 'none',
        startedAt: new Date(),
        finishedAt: new Date(),
        passed: true,
        checks: [],
        summary: 'ok',
      },
    });
    await expect(service.remove('reconciled')).rejects.toThrow('has 1 reconciliation report;');

    // A row written after the service's counts is still caught: the foreign key refuses the delete.
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      await expect(client.query('DELETE FROM account WHERE id = $1', [managed.id])).rejects.toMatchObject({
        code: '23503',
      });
    } finally {
      await client.end();
    }
    expect((await service.list()).map((a) => a.name)).toEqual(expect.arrayContaining(['managed', 'reconciled']));
  });
});
