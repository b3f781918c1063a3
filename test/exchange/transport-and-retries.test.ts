import { createServer } from 'node:net';

import { afterEach, describe, expect, it } from 'vitest';

import {
  AmbiguousResultError,
  ExchangeNetworkError,
  ExchangeServerError,
} from '../../src/exchange/errors/exchange-error.ts';
import { Transport } from '../../src/exchange/transport.ts';
import { spotRecord } from '../../src/streams/spot/pager.ts';
import { useTestRedis } from '../helpers/test-redis.ts';
import { fail, type FakeExchange, ok, send, startFakeExchange } from './helpers/fake-exchange.ts';
import { makeClient } from './helpers/make-client.ts';

// Read testRedis.prefix inside each test: it changes per test.
const testRedis = useTestRedis('exchange-transport');
const { redis } = testRedis;
const record = {
  id: '1',
  coin: 'BTC',
  spotTaxType: 'Buy',
  amount: '0.1',
  fee: '0',
  balance: '0.1',
  bizOrderId: 'b',
  ts: '1',
};
const created = { username: 'a@virtual', subUid: '7', status: 'normal', note: '', createdTime: '1', updatedTime: '1' };

let fake: FakeExchange | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('transport', () => {
  it('says a refused connection never sent the request', async () => {
    const transport = new Transport(`http://127.0.0.1:${await freePort()}`);
    const error = await transport
      .send({ endpoint: 'createSub', method: 'POST', pathAndQuery: '/x', headers: {}, body: '{}' })
      .catch((caught: unknown) => caught);
    await transport.close();
    expect(error).toBeInstanceOf(ExchangeNetworkError);
    expect((error as ExchangeNetworkError).requestMayHaveBeenSent).toBe(false);
  });

  it('says a connection reset after the request may have sent it', async () => {
    fake = await startFakeExchange((_request, response) => response.socket?.destroy());
    const transport = new Transport(fake.url);
    const error = await transport
      .send({ endpoint: 'createSub', method: 'POST', pathAndQuery: '/x', headers: {}, body: '{}' })
      .catch((caught: unknown) => caught);
    await transport.close();
    expect(error).toBeInstanceOf(ExchangeNetworkError);
    expect((error as ExchangeNetworkError).requestMayHaveBeenSent).toBe(true);
  });

  it('reports a body that breaks off as TRUNCATED_BODY', async () => {
    fake = await startFakeExchange((_request, response) => {
      response.writeHead(200, { 'content-length': '1000' });
      response.write('{"code":"00000","msg":"suc');
      setTimeout(() => response.socket?.destroy(), 20);
    });
    const transport = new Transport(fake.url);
    const error = await transport
      .send({ endpoint: 'spotRecord', method: 'GET', pathAndQuery: '/x', headers: {} })
      .catch((caught: unknown) => caught);
    await transport.close();
    expect(error).toMatchObject({ code: 'TRUNCATED_BODY', httpStatus: 200, requestMayHaveBeenSent: true });
  });

  it('gives up on a silent server after the headers timeout', async () => {
    fake = await startFakeExchange(() => undefined);
    const transport = new Transport(fake.url, { connectMs: 1_000, headersMs: 100, bodyMs: 100 });
    const error = await transport
      .send({ endpoint: 'spotRecord', method: 'GET', pathAndQuery: '/x', headers: {} })
      .catch((caught: unknown) => caught);
    await transport.close();
    expect(error).toBeInstanceOf(ExchangeNetworkError);
    expect((error as ExchangeNetworkError).msg).toMatch(/UND_ERR_HEADERS_TIMEOUT/);
  });

  it('ends an answer trickled a byte at a time at its deadline, with code DEADLINE naming the setting', async () => {
    let timer: NodeJS.Timeout | undefined;
    fake = await startFakeExchange((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{');
      timer = setInterval(() => response.write(' '), 20);
      response.on('close', () => clearInterval(timer));
    });
    const transport = new Transport(fake.url, { connectMs: 1_000, headersMs: 200, bodyMs: 200, totalMs: 500 });
    const started = Date.now();
    const error = await transport
      .send({ endpoint: 'spotRecord', method: 'GET', pathAndQuery: '/x', headers: {} })
      .catch((caught: unknown) => caught);
    clearInterval(timer);
    await transport.close();
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(error).toBeInstanceOf(ExchangeNetworkError);
    expect(error).toMatchObject({
      code: 'DEADLINE',
      httpStatus: 200,
      msg: 'no complete answer within the 500 ms deadline (EXCHANGE_DEADLINE_MS)',
      retryable: true,
    });
  });
});

describe('retries through the client', () => {
  it('repeats a GET through 500s, a reset and a truncated body, then returns the data', async () => {
    fake = await startFakeExchange((_request, response, index) => {
      if (index === 0) send(response, 500, fail('40015', 'internal error'));
      else if (index === 1) response.socket?.destroy();
      else if (index === 2) send(response, 200, ok([record]).slice(0, 25));
      else send(response, 200, ok([record]));
    });
    const client = makeClient(fake.url, redis, testRedis.prefix, { rateBudget: { perSecond: { spotRecord: 100 } } });
    const records = await spotRecord(client, { coin: 'BTC' });
    await client.close();
    expect(records).toEqual([{ ...record, raw: record }]);
    expect(fake.requests).toHaveLength(4);
    // Each attempt is signed afresh over the same query.
    expect(new Set(fake.requests.map((request) => request.url))).toEqual(new Set(['/api/v2/tax/spot-record?coin=BTC']));
  });

  it('gives up on a GET after maxAttempts with the last retryable error', async () => {
    fake = await startFakeExchange((_request, response) => send(response, 500, fail('40015', 'internal error')));
    const client = makeClient(fake.url, redis, testRedis.prefix, {
      retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2 },
      rateBudget: { perSecond: { spotRecord: 100 } },
    });
    await expect(spotRecord(client)).rejects.toBeInstanceOf(ExchangeServerError);
    await client.close();
    expect(fake.requests).toHaveLength(3);
  });

  it('never repeats a POST whose connection was reset: AmbiguousResultError after one request', async () => {
    fake = await startFakeExchange((_request, response) => response.socket?.destroy());
    const client = makeClient(fake.url, redis, testRedis.prefix);
    const error = await client.createSub({ username: 'alice' }).catch((caught: unknown) => caught);
    await client.close();
    expect(error).toBeInstanceOf(AmbiguousResultError);
    expect(error).toMatchObject({ endpoint: 'createSub', retryable: false });
    expect(fake.requests).toHaveLength(1);
  });

  it('never repeats a POST answered with 500 or a truncated body', async () => {
    for (const answer of [
      (r: Parameters<typeof send>[0]) => send(r, 500, fail('40015', 'x')),
      (r: Parameters<typeof send>[0]) => send(r, 200, ok(created).slice(0, 20)),
    ]) {
      fake = await startFakeExchange((_request, response) => answer(response));
      const client = makeClient(fake.url, redis, testRedis.prefix);
      await expect(client.createSub({ username: 'alice' })).rejects.toBeInstanceOf(AmbiguousResultError);
      await client.close();
      expect(fake.requests).toHaveLength(1);
      await fake.close();
      fake = undefined;
    }
  });

  it('repeats a POST refused with 429 (not acted on) and pauses the budget', async () => {
    fake = await startFakeExchange((_request, response, index) => {
      if (index === 0) send(response, 429, fail('429', 'Too Many Requests'));
      else send(response, 200, ok(created));
    });
    const client = makeClient(fake.url, redis, testRedis.prefix);
    const started = Date.now();
    const result = await client.createSub({ username: 'alice' });
    await client.close();
    expect(result.subUid).toBe('7');
    expect(fake.requests).toHaveLength(2);
    // The 429 paused the createSub budget for a full window before the second attempt.
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(fake.requests[0]!.body).toBe(fake.requests[1]!.body);
  });
});
