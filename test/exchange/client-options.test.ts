import { Writable } from 'node:stream';

import { afterEach, describe, expect, it } from 'vitest';

import { ValidationError } from '../../src/errors/validation-error.ts';
import type { ExchangeClientOptions } from '../../src/exchange/client-options.ts';
import { createRootLogger } from '../../src/logging/logger.ts';
import { spotRecord } from '../../src/streams/spot/pager.ts';
import { useTestRedis } from '../helpers/test-redis.ts';
import { fail, type FakeExchange, ok, send, startFakeExchange } from './helpers/fake-exchange.ts';
import { makeClient } from './helpers/make-client.ts';

/** Options as they might come from outside the type system (a config file): values the types forbid. */
function untyped(options: Record<string, unknown>): Partial<ExchangeClientOptions> {
  return options as Partial<ExchangeClientOptions>;
}
const fast = { rateBudget: { perSecond: { spotRecord: 100, fundNetFlow: 100 } } };

// Read testRedis.prefix inside each test: it changes per test.
const testRedis = useTestRedis('exchange-options');
const { redis } = testRedis;
let fake: FakeExchange | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe('client options', () => {
  it('sends the locale header, en-US by default, and no auth headers to the public endpoint', async () => {
    fake = await startFakeExchange((_request, response) => send(response, 200, ok([])));
    const english = makeClient(fake.url, redis, testRedis.prefix, fast);
    await spotRecord(english);
    const korean = makeClient(fake.url, redis, testRedis.prefix, { ...fast, locale: 'ko-KR' });
    await spotRecord(korean);
    await korean.fundNetFlow({ symbol: 'BTCUSDT' });
    await english.close();
    await korean.close();
    expect(fake.requests.map((request) => request.headers.locale)).toEqual(['en-US', 'ko-KR', 'ko-KR']);
    expect(fake.requests[0]!.headers['access-key']).toBe('test-key');
    expect(fake.requests[0]!.headers['content-type']).toBeUndefined();
    expect(fake.requests[2]!.headers['access-sign']).toBeUndefined();
  });

  it.each([
    [{ locale: 'fr-FR' }, /locale: must be one of en-US, zh-CN, ja-JP, ko-KR/],
    [{ baseUrl: 'https://api.example.com/v2' }, /baseUrl: must be an http\(s\) origin/],
    [{ baseUrl: 'ftp://api.example.com' }, /baseUrl/],
    [{ uid: '' }, /uid: must be the account UID/],
    [{ timeouts: { connectMs: 0 } }, /timeouts.connectMs/],
  ] as const)('refuses %j with a ValidationError naming the option', (override, message) => {
    expect(() => makeClient('http://127.0.0.1:1', redis, testRedis.prefix, untyped(override))).toThrow(ValidationError);
    expect(() => makeClient('http://127.0.0.1:1', redis, testRedis.prefix, untyped(override))).toThrow(message);
  });

  it('never shows a secret in an option error', () => {
    const error = (() => {
      try {
        makeClient('http://127.0.0.1:1', redis, testRedis.prefix, { secretKey: '' });
      } catch (caught) {
        return caught as ValidationError;
      }
      throw new Error('expected a throw');
    })();
    expect(error.field).toBe('exchange client secretKey');
    expect(error.value).toBeUndefined();
  });

  it('logs calls, retries and failures without the secret, the passphrase or the signature', async () => {
    let answers = 0;
    fake = await startFakeExchange((_request, response) => {
      answers += 1;
      if (answers === 1) send(response, 500, fail('40015', 'internal'));
      else if (answers === 2) send(response, 200, ok([]));
      else send(response, 400, fail('40012', 'apikey/password is incorrect'));
    });
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    const logger = createRootLogger({ level: 'trace', destination });
    const client = makeClient(fake.url, redis, testRedis.prefix, {
      ...fast,
      logger,
      secretKey: 'SUPER-SECRET-KEY',
      passphrase: 'Passphrase99',
    });
    await spotRecord(client);
    await spotRecord(client).catch(() => undefined);
    await client.close();
    const output = lines.join('');
    expect(output).toMatch(/exchange call retried/);
    expect(output).toMatch(/exchange call failed/);
    const signatures = fake.requests.map((request) => String(request.headers['access-sign']));
    for (const secret of ['SUPER-SECRET-KEY', 'Passphrase99', ...signatures]) expect(output).not.toContain(secret);
  });
});
