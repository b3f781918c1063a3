import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.ts';
import { call, sortedQuery } from './support/signer.ts';

const NOW = Date.UTC(2026, 5, 15, 12, 0, 0);
let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator({ scale: 'tiny', now: NOW, rateLimits: { enabled: false } });
});
afterAll(async () => {
  await sim.close();
});

describe('simulator smoke', () => {
  it('serves a signed spot-record page', async () => {
    const res = await call<unknown[]>(sim.url, sim.demo, 'GET', '/api/v2/tax/spot-record', {
      query: sortedQuery({ limit: 5 }),
    });
    expect(res.status).toBe(200);
    expect(res.json.code).toBe('00000');
    expect(res.json.data.length).toBe(5);
  });
});
