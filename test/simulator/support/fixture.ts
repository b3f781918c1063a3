import { afterAll, beforeAll } from 'vitest';

import { type RunningSimulator, type SimulatorOptions, startSimulator } from '../../../src/simulator/index.ts';
import { call, type CallOptions, type Credentials, sortedQuery } from './signer.ts';

/** A fixed simulated "now" (frozen clock) shared by the tests: 2026-06-15 12:00 UTC. */
export const NOW = Date.UTC(2026, 5, 15, 12, 0, 0);
export const DAY = 86_400_000;

/** One simulator per test file, started on a random port and closed afterwards. */
export function useSimulator(options: SimulatorOptions = {}): { readonly sim: RunningSimulator } {
  let sim: RunningSimulator | undefined;
  beforeAll(async () => {
    sim = await startSimulator({ scale: 'tiny', now: NOW, rateLimits: { enabled: false }, ...options });
  });
  afterAll(async () => {
    await sim?.close();
  });
  return {
    get sim() {
      if (!sim) throw new Error('simulator not started');
      return sim;
    },
  };
}

export function get<T = unknown>(
  sim: RunningSimulator,
  path: string,
  params: Record<string, string | number | undefined> = {},
  credentials: Credentials = sim.demo,
  options: CallOptions = {},
) {
  return call<T>(sim.url, credentials, 'GET', path, { query: sortedQuery(params), ...options });
}

export function post<T = unknown>(
  sim: RunningSimulator,
  path: string,
  body: unknown,
  credentials: Credentials = sim.demo,
  options: CallOptions = {},
) {
  return call<T>(sim.url, credentials, 'POST', path, { body: JSON.stringify(body), ...options });
}

export const PATHS = {
  createKey: '/api/v2/user/create-virtual-subaccount-apikey',
  modifyKey: '/api/v2/user/modify-virtual-subaccount-apikey',
  batchCreate: '/api/v2/user/batch-create-subaccount-and-apikey',
  createSub: '/api/v3/user/create-sub',
  cancelSymbol: '/api/v3/trade/cancel-symbol-order',
  batchCancel: '/api/v2/spot/trade/batch-cancel-order',
  oiLimit: '/api/v3/account/open-interest-limit',
  positions: '/api/v2/mix/position/history-position',
  transfers: '/api/v3/broker/all-sub-deposit-withdrawal',
  spot: '/api/v2/tax/spot-record',
  futures: '/api/v2/tax/future-record',
  netFlow: '/api/v2/spot/market/fund-net-flow',
} as const;

/** Asserts nothing itself: returns the envelope's essentials for one expect(). */
export function outcome(result: { status: number; json: { code: string; msg: string; data: unknown } }) {
  return { status: result.status, code: result.json.code, msg: result.json.msg };
}
