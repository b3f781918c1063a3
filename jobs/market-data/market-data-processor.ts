import type { Job } from 'bullmq';

import type { Logger } from '../../src/logging/logger.ts';
import { storeNetFlow } from '../../src/market-data/store-net-flow.ts';
import { storeOiLimit } from '../../src/market-data/store-oi-limit.ts';
import { JOB } from '../definitions.ts';
import type { Runtime } from '../runtime.ts';

/**
 * Polls the configured market series. Both endpoints are rate-limited (1/s
 * per IP for net flow, 5/s per UID for OI limits); the client's shared budget
 * spaces the calls, so a poll of many symbols simply takes longer.
 */
export function createMarketDataProcessor(runtime: Runtime, log: Logger) {
  async function netFlow(job: Job) {
    const [account] = await runtime.accounts.list();
    if (!account) {
      log.info({ jobId: job.id }, 'net-flow poll discarded: no account registered (its base URL names the exchange)');
      return { discarded: 'no account' };
    }
    // Net flow is public market data; any account's client reaches the same exchange.
    const client = await runtime.clients.forAccount(account.id);
    let stored = 0;
    for (const symbol of runtime.config.marketData.netFlowSymbols) {
      stored += await storeNetFlow(runtime.pool, symbol, await client.fundNetFlow({ symbol }));
    }
    log.info(
      { jobId: job.id, symbols: runtime.config.marketData.netFlowSymbols.length, stored },
      'net-flow poll completed',
    );
    return { stored };
  }

  async function oiLimits(job: Job) {
    let written = 0;
    const capturedAt = new Date();
    for (const account of await runtime.accounts.list()) {
      const client = await runtime.clients.forAccount(account.id);
      for (const { symbol, category } of runtime.config.marketData.oiLimitMarkets) {
        const limit = await client.openInterestLimit({ symbol, category });
        if (await storeOiLimit(runtime.pool, account.id, category, limit, capturedAt)) written += 1;
      }
    }
    log.info({ jobId: job.id, written }, 'oi-limit poll completed');
    return { written };
  }

  return async (job: Job) => {
    if (job.name === JOB.netFlow) return netFlow(job);
    if (job.name === JOB.oiLimits) return oiLimits(job);
    log.warn({ jobId: job.id, name: job.name }, 'market-data job discarded: unknown job name');
    return { discarded: job.name };
  };
}
