import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { ExchangeClient } from '../../src/exchange/exchange-client.ts';
import { planWindows } from '../../src/exchange/paging/window-planner.ts';
import { MemoryRateBudget } from '../../src/exchange/rate-budget/memory-rate-budget.ts';
import { FUTURES_CATEGORIES } from '../../src/exchange/requests/primitives.ts';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.ts';
import type { Page } from '../../src/streams/kit/page-window.ts';
import { historyPositionEndpoint, positionHorizon } from '../../src/streams/positions/endpoint.ts';
import { pageHistoryPositions } from '../../src/streams/positions/pager.ts';
import { spotRecordEndpoint } from '../../src/streams/spot/endpoint.ts';
import { pageSpotRecords } from '../../src/streams/spot/pager.ts';
import { allSubDepositWithdrawalEndpoint } from '../../src/streams/transfers/endpoint.ts';
import { pageSubDepositWithdrawals } from '../../src/streams/transfers/pager.ts';
import { simulatorClient } from './helpers/simulator-client.ts';

const NOW = Date.UTC(2026, 5, 15, 12, 0, 0);
let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator({ seed: 11, scale: 'tiny', now: NOW, rateLimits: { enabled: true, factor: 20 } });
});
afterAll(async () => {
  await sim.close();
});

async function collect<T>(pages: AsyncIterable<Page<T>>): Promise<T[]> {
  const items: T[] = [];
  for await (const page of pages) items.push(...page.items);
  return items;
}

function expectExactlyOnce(ids: string[], truthIds: (string | undefined)[]): void {
  expect(new Set(ids).size).toBe(ids.length); // nothing twice
  expect([...ids].sort()).toEqual([...truthIds].sort()); // nothing missing, nothing extra
}

async function pageEverything(client: ExchangeClient) {
  const horizon = positionHorizon(NOW);
  const positions = [];
  for (const productType of FUTURES_CATEGORIES) {
    for (const window of planWindows(historyPositionEndpoint, 0, NOW + 1, { now: NOW })) {
      positions.push(...(await collect(pageHistoryPositions(client, window, { productType }, { limit: 7 }))));
    }
  }
  const spot = [];
  // Newest window first, so the whole stream comes out newest first like the truth.
  for (const window of planWindows(spotRecordEndpoint, NOW - 400 * 86_400_000, NOW + 1).reverse()) {
    spot.push(...(await collect(pageSpotRecords(client, window, {}, { limit: 37 }))));
  }
  const transfers = [];
  for (const window of planWindows(allSubDepositWithdrawalEndpoint, NOW - 400 * 86_400_000, NOW + 1)) {
    transfers.push(...(await collect(pageSubDepositWithdrawals(client, window, {}, { limit: 13 }))));
  }
  return { horizon, positions, spot, transfers };
}

describe('paging whole windows against the simulator', () => {
  it('yields every record exactly once through 5% HTTP 500, 2% resets and 3% truncated bodies', async () => {
    sim.faults.set({ http500: 0.05, reset: 0.02, truncate: 0.03, seed: 2024 });
    sim.counters.reset();
    const client = simulatorClient(sim, new MemoryRateBudget(), 'sim-paging', { factor: 20 });
    const { horizon, positions, spot, transfers } = await pageEverything(client);
    await client.close();
    sim.faults.clear();

    const truthPositions = sim.truth('positions').filter((p) => Number(p.utime) >= horizon);
    expect(truthPositions.length).toBeGreaterThan(100);
    expect(sim.truth('transfers').length).toBeGreaterThan(100);
    expectExactlyOnce(
      positions.map((p) => p.positionId),
      truthPositions.map((p) => p.positionId),
    );
    expectExactlyOnce(
      spot.map((r) => r.id),
      sim.truth('spot').map((r) => r.id),
    );
    // Same records, byte for byte, in the same order; raw is each item exactly as sent.
    expect(spot).toEqual(sim.truth('spot').map((r) => ({ ...r, raw: r })));
    expectExactlyOnce(
      transfers.map((t) => t.txId),
      sim.truth('transfers').map((t) => t.txId),
    );

    // The faults did happen, and the budget kept the simulator from answering 429.
    const counters = Object.values(sim.counters.get());
    const errors = counters.reduce((sum, c) => sum + c.errors, 0);
    const requests = counters.reduce((sum, c) => sum + c.requests, 0);
    expect(errors).toBeGreaterThan(requests * 0.04);
    expect(counters.reduce((sum, c) => sum + c.rateLimited, 0)).toBe(0);
  });

  it('resumes a window from a cursor saved after any page, without a gap or a repeat', async () => {
    const client = simulatorClient(sim, new MemoryRateBudget(), 'sim-paging', { factor: 20 });
    const window = planWindows(spotRecordEndpoint, NOW - 60 * 86_400_000, NOW + 1).find(
      (w) => w.end - w.start === 30 * 86_400_000,
    );
    const all = await collect(pageSpotRecords(client, window!, {}, { limit: 9 }));
    expect(all.length).toBeGreaterThan(30);
    let saved: string | null = null;
    const before = [];
    for await (const page of pageSpotRecords(client, window!, {}, { limit: 9 })) {
      before.push(...page.items);
      saved = page.cursor; // the checkpoint a job would write after storing the page
      if (before.length >= 18) break; // the process "dies" here
    }
    const after = await collect(pageSpotRecords(client, window!, {}, { limit: 9, resumeFrom: saved }));
    await client.close();
    expect([...before, ...after]).toEqual(all);
  });
});
