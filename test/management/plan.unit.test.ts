import { describe, expect, it } from 'vitest';

import { ValidationError } from '../../src/errors/index.ts';
import { RequestValidationError } from '../../src/exchange/index.ts';
import type { OrderRef } from '../../src/management/action-input.ts';
import { joinSecrets, redactInput, splitSecrets } from '../../src/management/action-input.ts';
import { planAction, redactBody } from '../../src/management/action-plan.ts';
import { planBatchCancel } from '../../src/management/batch-cancel-plan.ts';
import { idempotencyKey } from '../../src/management/idempotency.ts';

function orders(count: number, symbols: string[], clientOidEvery = 2): OrderRef[] {
  return Array.from({ length: count }, (_, k) => {
    const symbol = symbols[k % symbols.length]!;
    return k % clientOidEvery === 1 ? { symbol, clientOid: `c${k}` } : { symbol, orderId: `${k}` };
  });
}

describe('planBatchCancel', () => {
  it('180 orders of two id kinds over 3 symbols: at most 50 each, one kind each, every order exactly once', () => {
    const input = orders(180, ['BTCUSDT', 'ETHUSDT', 'SOLUSDT']);
    const chunks = planBatchCancel(input);
    expect(chunks.map((c) => [c.kind, c.body.orderList.length])).toEqual([
      ['orderId', 50],
      ['orderId', 40],
      ['clientOid', 50],
      ['clientOid', 40],
    ]);
    for (const chunk of chunks) {
      expect(
        chunk.body.orderList.every((item) => (chunk.kind === 'orderId' ? item.clientOid : item.orderId) === undefined),
      ).toBe(true);
      const symbols = new Set(chunk.indices.map((i) => input[i]!.symbol));
      expect(chunk.body.batchMode).toBe(symbols.size > 1 ? 'multiple' : 'single');
    }
    expect(chunks.flatMap((c) => c.indices).sort((a, b) => a - b)).toEqual(input.map((_o, k) => k));
  });

  it('a request of one symbol is single mode with the symbol on top; several symbols are multiple mode with a symbol per item', () => {
    const [single, multiple] = planBatchCancel([
      { symbol: 'ETHUSDT', orderId: '1' },
      { symbol: 'ETHUSDT', orderId: '2' },
      { symbol: 'BTCUSDT', clientOid: 'a' },
      { symbol: 'ETHUSDT', clientOid: 'b' },
    ]);
    expect(single!.body).toEqual({
      symbol: 'ETHUSDT',
      batchMode: 'single',
      orderList: [{ orderId: '1' }, { orderId: '2' }],
    });
    expect(multiple!.body).toEqual({
      batchMode: 'multiple',
      orderList: [
        { symbol: 'BTCUSDT', clientOid: 'a' },
        { symbol: 'ETHUSDT', clientOid: 'b' },
      ],
    });
  });

  it.each([
    [[], /^orders: must name at least one order$/],
    [[{ symbol: 'BTCUSDT' }], /^orders\[0\]: must give exactly one of orderId and clientOid$/],
    [[{ symbol: 'BTCUSDT', orderId: '1', clientOid: 'a' }], /^orders\[0\]: must give exactly one/],
    [
      [
        { symbol: 'BTCUSDT', orderId: '1' },
        { symbol: 'ETHUSDT', orderId: '1' },
      ],
      /^orders\[1\]: repeats orders\[0\] \(orderId 1\)$/,
    ],
  ] as [OrderRef[], RegExp][])('rejects a bad list: %j', (input, message) => {
    expect(() => planBatchCancel(input)).toThrow(ValidationError);
    expect(() => planBatchCancel(input)).toThrow(message);
  });
});

describe('planAction', () => {
  const item = (name: string) => ({
    subAccountName: name,
    passphrase: 'Pass2026ab',
    label: 'l',
    permList: ['read' as const],
  });
  const names = [
    'Aaaaaaaa',
    'Bbbbbbbb',
    'Cccccccc',
    'Dddddddd',
    'Eeeeeeee',
    'Ffffffff',
    'Gggggggg',
    'Hhhhhhhh',
    'Iiiiiiii',
    'Jjjjjjjj',
    'Kkkkkkkk',
    'Llllllll',
  ];

  it('splits a batch creation into requests of at most 5 and keeps the operator order', () => {
    const plan = planAction({ command: 'subaccount_batch_create', params: { items: names.map(item) } });
    expect(plan.map((r) => [r.step, r.endpoint, r.path, (r.body as unknown[]).length])).toEqual([
      ['chunk-0', 'batchCreateSubaccountAndApiKey', '/api/v2/user/batch-create-subaccount-and-apikey', 5],
      ['chunk-1', 'batchCreateSubaccountAndApiKey', '/api/v2/user/batch-create-subaccount-and-apikey', 5],
      ['chunk-2', 'batchCreateSubaccountAndApiKey', '/api/v2/user/batch-create-subaccount-and-apikey', 2],
    ]);
    expect(plan[2]!.itemIndices).toEqual([10, 11]);
  });

  it('names a broken rule by its place in the operator list, not in the request', () => {
    const items = names.map(item);
    items[7] = { ...items[7]!, label: '' };
    expect(() => planAction({ command: 'subaccount_batch_create', params: { items } })).toThrow(
      /^batchCreateSubaccountAndApiKey: items\[7\]\.label: must be 1 to 20 characters/,
    );
    const list = orders(60, ['BTCUSDT'], 1000);
    list[55] = { symbol: 'BTCUSDT', orderId: ' 55' };
    const error = (() => {
      try {
        planAction({ command: 'orders_batch_cancel', params: { orders: list } });
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as Error).message).toMatch(/^batchCancelOrder: orders\[55\]\.orderId: must be an order id/);
  });

  it('redacts passphrases, and secret keys of answers, for storage and display', () => {
    const input = {
      command: 'apikey_create' as const,
      params: { subAccountUid: '1', passphrase: 'Pass2026ab', label: 'l', permList: [] },
    };
    expect(redactInput(input)).toEqual({ subAccountUid: '1', passphrase: '[redacted]', label: 'l', permList: [] });
    expect(redactBody([{ passphrase: 'x', nested: { secretKey: 's' } }])).toEqual([
      { passphrase: '[redacted]', nested: { secretKey: '[sealed]' } },
    ]);
    const split = splitSecrets(input);
    expect(split.secrets).toEqual(['Pass2026ab']);
    expect(JSON.stringify(split.params)).not.toContain('Pass2026ab');
    expect(joinSecrets(split.command, split.params, split.secrets)).toEqual(input);
  });
});

describe('idempotencyKey', () => {
  const account = '00000000-0000-4000-8000-000000000001';

  it('is equal for two ways of writing the same command and differs for another command', () => {
    const a = idempotencyKey(account, 'apikey_create', {
      subAccountUid: '1',
      label: 'l',
      permList: ['read', 'spot_trade'],
    });
    const b = idempotencyKey(account, 'apikey_create', {
      permList: ['spot_trade', 'read'],
      label: 'l',
      subAccountUid: '1',
    });
    const c = idempotencyKey(account, 'apikey_create', { subAccountUid: '1', label: 'l', permList: ['read'] });
    const d = idempotencyKey('00000000-0000-4000-8000-000000000002', 'apikey_create', {
      subAccountUid: '1',
      label: 'l',
      permList: ['read', 'spot_trade'],
    });
    expect(a).toBe(b);
    expect(a).toMatch(/^derived:apikey_create:[0-9a-f]{64}$/);
    expect(new Set([a, c, d]).size).toBe(3);
    expect(idempotencyKey(account, 'subaccount_create', { username: 'x' })).toBe(
      idempotencyKey(account, 'subaccount_create', { username: 'x', accountMode: 'unified' }),
    );
  });

  it('takes a caller key as given, and refuses one that is not a plain token', () => {
    expect(idempotencyKey(account, 'orders_cancel_all', { category: 'SPOT' }, 'run-2026.11.22')).toBe(
      'caller:run-2026.11.22',
    );
    expect(() => idempotencyKey(account, 'orders_cancel_all', { category: 'SPOT' }, 'has space')).toThrow(
      /^--idempotency-key: must be 1 to 100 characters/,
    );
  });
});
