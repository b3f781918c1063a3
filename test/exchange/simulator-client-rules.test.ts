import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestValidationError } from '../../src/exchange/errors/request-validation-error.ts';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.ts';
import { useTestRedis } from '../helpers/test-redis.ts';
import { ruleCases } from './fixtures/rule-cases.ts';
import { callEndpoint } from './helpers/make-client.ts';
import { simulatorClient } from './helpers/simulator-client.ts';

const NOW = Date.UTC(2026, 5, 15, 12, 0, 0);
const { redis, prefix } = useTestRedis('exchange-sim-rules');
let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator({ seed: 3, scale: 'tiny', now: NOW });
});
afterAll(async () => {
  await sim.close();
});

describe('every spec rule is refused client-side, against the simulator', () => {
  it('refuses each broken rule with a RequestValidationError and sends nothing (the request log stays empty)', async () => {
    const client = simulatorClient(sim, redis, prefix);
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
    await simulatorClient(sim, redis, prefix).spotRecord({ limit: 1 });
    expect(sim.requestLog.list()).toHaveLength(1);
  });
});
