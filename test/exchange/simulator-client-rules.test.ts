import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { RequestValidationError } from '../../src/exchange/errors/request-validation-error.ts';
import { authHeaders, buildQueryString } from '../../src/exchange/signer.ts';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.ts';
import { endpointNamed } from '../../src/streams/endpoints.ts';
import { spotRecord } from '../../src/streams/spot/pager.ts';
import { useTestRedis } from '../helpers/test-redis.ts';
import { ruleCases } from './fixtures/rule-cases.ts';
import { callEndpoint } from './helpers/make-client.ts';
import { simulatorClient } from './helpers/simulator-client.ts';

const NOW = Date.UTC(2026, 5, 15, 12, 0, 0);
// Read testRedis.prefix inside each test: it changes per test.
const testRedis = useTestRedis('exchange-sim-rules');
const { redis } = testRedis;
let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator({ seed: 3, scale: 'tiny', now: NOW, rateLimits: { enabled: false } });
});
afterAll(async () => {
  await sim.close();
});

describe('every spec rule is refused client-side, against the simulator', () => {
  it('refuses each broken rule with a RequestValidationError and sends nothing (the request log stays empty)', async () => {
    const client = simulatorClient(sim, redis, testRedis.prefix);
    sim.requestLog.clear();
    const cases = ruleCases(sim.clock.now());
    const outcomes = [];
    for (const c of cases) {
      const error = await callEndpoint(client, c.endpoint, c.params).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      outcomes.push({ name: c.name, error });
    }
    await client.close();
    for (const [index, { name, error }] of outcomes.entries()) {
      expect(error, name).toBeInstanceOf(RequestValidationError);
      expect((error as RequestValidationError).field, name).toBe(cases[index]!.field);
      expect((error as RequestValidationError).rule, name).toMatch(cases[index]!.rule);
    }
    // Every endpoint has at least one refused rule in the table.
    expect(new Set(cases.map((c) => c.endpoint)).size).toBe(11);
    expect(sim.requestLog.list()).toEqual([]);
    // And the simulator's log does record requests that are sent: the empty log above means something.
    await spotRecord(simulatorClient(sim, redis, testRedis.prefix), { limit: 1 });
    expect(sim.requestLog.list()).toHaveLength(1);
  });

  // The exchange's parameter-rule codes (docs/exchange-api.md §3.3): missing, invalid, passphrase, name, label,
  // duplicate name, range too long, older than 3 months, start after end.
  const PARAMETER_CODES = ['40019', '40020', '40070', '40055', '40056', '40071', '00001', '40704', '40707'];

  it('mirrors a refusal of the exchange for each rule: the same request sent raw is refused as a parameter error', async () => {
    const mismatches: string[] = [];
    for (const c of ruleCases(sim.clock.now())) {
      const spec = endpointNamed(c.endpoint);
      const query =
        spec.method === 'GET'
          ? buildQueryString(
              Object.fromEntries(
                Object.entries(c.params as Record<string, unknown>).map(([k, v]) => [
                  k,
                  v === undefined ? v : String(v),
                ]),
              ),
            )
          : '';
      const body = spec.method === 'POST' ? JSON.stringify(c.params) : '';
      const headers = authHeaders(
        sim.demo,
        { timestamp: String(Date.now()), method: spec.method, requestPath: spec.path, queryString: query, body },
        'en-US',
      );
      const answer = await request(`${sim.url}${spec.path}${query ? `?${query}` : ''}`, {
        method: spec.method,
        headers,
        body: spec.method === 'POST' ? body : undefined,
      });
      const { code } = (await answer.body.json()) as { code: string };
      const refused = PARAMETER_CODES.includes(code);
      if (refused === (c.stricter !== undefined)) mismatches.push(`${c.name}: exchange answered ${code}`);
    }
    // Every rule the client enforces is one the exchange enforces too, except the few marked stricter on purpose.
    expect(mismatches).toEqual([]);
  });
});
