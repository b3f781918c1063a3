import type { ServerResponse } from 'node:http';

import { afterEach, describe, expect, it } from 'vitest';

import { AmbiguousResultError, MalformedResponseError } from '../../src/exchange/errors/exchange-error.ts';
import { spotRecord } from '../../src/streams/spot/pager.ts';
import { useTestRedis } from '../helpers/test-redis.ts';
import { type FakeExchange, ok, startFakeExchange } from './helpers/fake-exchange.ts';
import { makeClient } from './helpers/make-client.ts';

const MIB = 1024 * 1024;
const testRedis = useTestRedis('answer-size');
const { redis } = testRedis;

let fake: FakeExchange | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** A valid page of 500 spot records, each with an extra field of `extraBytes`: the client would store it whole. */
function page(extraBytes: number): Buffer {
  const records = Array.from({ length: 500 }, (_, i) => ({
    id: String(1_000 + i),
    coin: 'BTC',
    spotTaxType: 'Buy',
    amount: '0.1',
    fee: '0',
    balance: '0.1',
    bizOrderId: 'b',
    ts: String(1_700_000_000_000 + i),
    memo: 'x'.repeat(extraBytes),
  }));
  return Buffer.from(ok(records), 'utf8');
}

interface Served {
  /** Bytes the server handed to the socket before it ended or was closed. */
  written: number;
  /** Whether the whole body was written (false: the client closed the connection first). */
  finished: boolean;
  done: Promise<void>;
}

/**
 * Writes `body` in 64 KiB pieces, each once the socket took the last one, with or without a
 * Content-Length (chunked), and notes how far it got before the client hung up. Once past 16 MiB
 * it waits up to 2 s for the client to hang up (the socket buffers could otherwise swallow the
 * last MiB before the client decides) and then writes the rest.
 */
function serve(response: ServerResponse, body: Buffer, withLength: boolean, served: Served[]): void {
  const state: Served = { written: 0, finished: false, done: Promise.resolve() };
  served.push(state);
  const closed = new Promise<void>((resolve) => response.on('close', () => resolve()));
  state.done = closed;
  response.writeHead(200, {
    'content-type': 'application/json',
    ...(withLength ? { 'content-length': String(body.length) } : {}),
  });
  let paused = false;
  const next = async () => {
    if (response.destroyed) return;
    if (state.written > 16 * MIB && !paused) {
      paused = true;
      await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 2_000))]);
      if (response.destroyed) return;
    }
    if (state.written >= body.length) {
      response.end(() => (state.finished = true));
      return;
    }
    const piece = body.subarray(state.written, state.written + 64 * 1024);
    state.written += piece.length;
    if (response.write(piece)) setImmediate(() => void next());
    else response.once('drain', () => void next());
  };
  void next();
}

describe('an answer larger than the limit (16 MiB by default)', () => {
  for (const withLength of [true, false]) {
    const how = withLength ? 'with a Content-Length' : 'chunked, without a Content-Length';
    it(`is refused as malformed, naming the limit, before it is parsed and without reading it all (${how})`, async () => {
      const body = page(36_000);
      expect(body.length).toBeGreaterThan(17 * MIB);
      const served: Served[] = [];
      fake = await startFakeExchange((_request, response) => serve(response, body, withLength, served));
      const client = makeClient(fake.url, redis, testRedis.prefix, { rateBudget: { perSecond: { spotRecord: 100 } } });
      const error = await spotRecord(client).catch((caught: unknown) => caught);
      await client.close();
      await Promise.all(served.map((s) => s.done));

      expect(error).toBeInstanceOf(MalformedResponseError);
      expect(error).toMatchObject({ code: 'MALFORMED_RESPONSE', retryable: false, httpStatus: 200 });
      expect((error as Error).message).toMatch(/larger than the 16 MiB \(16777216 bytes\) limit/);
      // Not repeated: the same answer would be as large next time.
      expect(fake.requests).toHaveLength(1);
      // The client hung up before the server could write it all: it stopped reading at the limit.
      expect(served[0]!.finished).toBe(false);
      expect(served[0]!.written).toBeLessThan(body.length);
    });
  }

  it('is read as usual just under the limit', async () => {
    const body = page(33_000);
    expect(body.length).toBeGreaterThan(15.5 * MIB);
    expect(body.length).toBeLessThan(16 * MIB);
    fake = await startFakeExchange((_request, response) => serve(response, body, false, []));
    const client = makeClient(fake.url, redis, testRedis.prefix);
    const records = await spotRecord(client);
    await client.close();
    expect(records).toHaveLength(500);
  });

  it('follows EXCHANGE_MAX_ANSWER_BYTES (the client option), and a POST so answered is ambiguous', async () => {
    fake = await startFakeExchange((_request, response) => serve(response, page(3_000), true, []));
    const client = makeClient(fake.url, redis, testRedis.prefix, { maxAnswerBytes: MIB });
    const read = await spotRecord(client).catch((caught: unknown) => caught);
    expect(read).toBeInstanceOf(MalformedResponseError);
    expect((read as Error).message).toMatch(/larger than the 1 MiB \(1048576 bytes\) limit/);
    // The exchange may have acted on a POST whose answer is refused: checked, never repeated.
    const write = await client.createSub({ username: 'alice' }).catch((caught: unknown) => caught);
    await client.close();
    expect(write).toBeInstanceOf(AmbiguousResultError);
    expect((write as Error).message).toMatch(/MALFORMED_RESPONSE .*1 MiB/);
    expect(fake.requests).toHaveLength(2);
  });
});
