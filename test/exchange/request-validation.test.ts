import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ValidationError } from '../../src/errors/validation-error.ts';
import { RequestValidationError } from '../../src/exchange/errors/request-validation-error.ts';
import { historyPosition } from '../../src/streams/positions/pager.ts';
import { spotRecord } from '../../src/streams/spot/pager.ts';
import { allSubDepositWithdrawal } from '../../src/streams/transfers/pager.ts';
import { useTestRedis } from '../helpers/test-redis.ts';
import { ruleCases } from './fixtures/rule-cases.ts';
import { type FakeExchange, ok, send, startFakeExchange } from './helpers/fake-exchange.ts';
import { callEndpoint, makeClient } from './helpers/make-client.ts';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 15, 12);
// Read testRedis.prefix inside each test: it changes per test.
const testRedis = useTestRedis('exchange-validation');
const { redis } = testRedis;

let fake: FakeExchange;
beforeAll(async () => {
  fake = await startFakeExchange((request, response) =>
    send(response, 200, ok(request.url.startsWith('/api/v2/tax/spot-record') ? [] : { list: [], endId: null })),
  );
});
afterAll(async () => {
  await fake.close();
});

describe('request validation before sending', () => {
  it.each(ruleCases(NOW).map((c) => [c.name, c] as const))('%s: refused, naming field and rule', async (_n, c) => {
    const client = makeClient(fake.url, redis, testRedis.prefix, { clock: () => NOW });
    const error = await callEndpoint(client, c.endpoint, c.params).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    await client.close();
    expect(error).toBeInstanceOf(RequestValidationError);
    expect(error).toBeInstanceOf(ValidationError);
    const validation = error as RequestValidationError;
    expect(validation.endpoint).toBe(c.endpoint);
    expect(validation.field).toBe(c.field);
    expect(validation.rule).toMatch(c.rule);
    expect(validation.retryable).toBe(false);
    expect(fake.requests).toHaveLength(0);
  });

  it('shows the value at fault, but never a passphrase', async () => {
    const client = makeClient(fake.url, redis, testRedis.prefix);
    const limit = await spotRecord(client, { limit: 501 }).catch((error: unknown) => error);
    expect((limit as RequestValidationError).value).toBe(501);
    expect((limit as RequestValidationError).message).toBe(
      'spotRecord: limit: must be an integer from 1 to 500 (got 501)',
    );
    const secret = await client
      .createVirtualSubaccountApiKey({ subAccountUid: '1', passphrase: 'Secret!Value9', label: 'x', permList: [] })
      .catch((error: unknown) => error);
    expect((secret as RequestValidationError).message).not.toContain('Secret!Value9');
    expect((secret as RequestValidationError).value).toBe('[redacted]');
    await client.close();
    expect(fake.requests).toHaveLength(0);
  });

  it('lets the boundary values of every rule through, converted to decimal strings', async () => {
    const client = makeClient(fake.url, redis, testRedis.prefix, { clock: () => NOW });
    await historyPosition(client, { startTime: NOW - 90 * DAY, endTime: NOW, limit: 100 });
    await spotRecord(client, { startTime: NOW - 30 * DAY, endTime: NOW, limit: '500', coin: 'USDT' });
    await allSubDepositWithdrawal(client, { startTime: NOW - 7 * DAY, endTime: NOW, limit: 100, status: 'pending' });
    const urls = fake.requests.map((request) => request.url);
    expect(urls).toEqual([
      `/api/v2/mix/position/history-position?endTime=${NOW}&limit=100&startTime=${NOW - 90 * DAY}`,
      `/api/v2/tax/spot-record?coin=USDT&endTime=${NOW}&limit=500&startTime=${NOW - 30 * DAY}`,
      `/api/v3/broker/all-sub-deposit-withdrawal?endTime=${NOW}&limit=100&startTime=${NOW - 7 * DAY}&status=pending`,
    ]);

    fake.requests.length = 0;
    const ipList = Array.from({ length: 30 }, (_, i) => (i % 2 ? `10.0.0.${i}` : `2001:db8::${i}`));
    await client
      .createVirtualSubaccountApiKey({
        subAccountUid: '1',
        passphrase: `a1${'B'.repeat(30)}`,
        label: 'x'.repeat(20),
        ipList,
        permList: ['spot_trade', 'margin_trade', 'contract_trade', 'transfer', 'read'],
      })
      .catch(() => undefined); // the fake's answer does not fit this endpoint; only the request matters
    await client
      .batchCancelOrder({
        symbol: 'BTCUSDT',
        orderList: Array.from({ length: 50 }, (_, i) => ({ clientOid: `c${i}` })),
      })
      .catch(() => undefined);
    await client
      .createSub({ username: 'a'.repeat(20), note: '日'.repeat(50), accountMode: 'unified' })
      .catch(() => undefined);
    expect(fake.requests).toHaveLength(3);
    expect(JSON.parse(fake.requests[0]!.body)).toMatchObject({ label: 'x'.repeat(20), ipList });
    expect(JSON.parse(fake.requests[2]!.body)).toEqual({
      username: 'a'.repeat(20),
      note: '日'.repeat(50),
      accountMode: 'unified',
    });
    await client.close();
  });
});
