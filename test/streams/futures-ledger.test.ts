import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startBackfill } from '../../src/app/services/backfill.ts';
import { windowProgress } from '../../src/ingest/coverage/window-progress.ts';
import { coveredRanges } from '../../src/ingest/coverage/window-store.ts';
import { futureRecordHorizon } from '../../src/streams/futures-ledger/endpoint.ts';
import { storedFuturesLedger, truthFuturesLedger } from '../helpers/ground-truth.ts';
import { type Pipeline, startPipeline } from '../helpers/pipeline.ts';
import { useTestDatabase } from '../helpers/test-database.ts';

const DAY = 86_400_000;
const db = useTestDatabase('futuresledger');
let pipeline: Pipeline;

// The demo account: the acceptance of the futures ledger is stated on it.
beforeAll(async () => {
  pipeline = await startPipeline({ databaseUrl: db.url, simulator: { scale: 'demo' } });
  pipeline.startWorkers();
  const now = Date.now();
  const started = await startBackfill(pipeline.runtime, {
    account: 'demo',
    stream: 'all',
    from: now - 400 * DAY,
    to: now,
    now,
  });
  const ids = started.windows.map((w) => w.id);
  for (const deadline = Date.now() + 120_000; ;) {
    const progress = await windowProgress(pipeline.runtime.pool, ids);
    if (progress.every((p) => p.done + p.failed === p.total)) {
      expect(progress.every((p) => p.failed === 0)).toBe(true);
      break;
    }
    if (Date.now() > deadline) throw new Error(`windows not finished: ${JSON.stringify(progress)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}, 180_000);
afterAll(async () => {
  await pipeline?.close();
});

describe('the futures ledger of the demo account, backfilled with every stream', () => {
  it('is stored exactly as the exchange serves it, each productType covered from the horizon on', async () => {
    const { pool } = pipeline.runtime;
    const stored = await storedFuturesLedger(pool, pipeline.accountId);
    expect(stored.length).toBeGreaterThan(10_000);
    expect(stored).toEqual(truthFuturesLedger(pipeline.sim));
    for (const scope of ['USDT-FUTURES', 'COIN-FUTURES', 'USDC-FUTURES']) {
      const covered = await coveredRanges(pool, { accountId: pipeline.accountId, stream: 'futures-ledger', scope });
      expect(covered).toHaveLength(1);
      expect(covered[0]!.start).toBeLessThanOrEqual(futureRecordHorizon(Date.now()));
    }
  });

  it('replayed per margin coin from its first record: never below zero, ending at the futures balance', async () => {
    const rows = await pipeline.runtime.pool.query<{ margin_coin: string; balance: string; lowest: string }>(
      `SELECT margin_coin, (array_agg(running ORDER BY ts DESC, record_id DESC))[1]::text AS balance,
              min(running)::text AS lowest
         FROM (SELECT margin_coin, ts, record_id,
                      sum(amount + fee) OVER (PARTITION BY product_type, margin_coin ORDER BY ts, record_id) AS running
                 FROM futures_ledger_record WHERE account_id = $1) r
        GROUP BY margin_coin`,
      [pipeline.accountId],
    );
    const balances = pipeline.sim.futuresBalances();
    expect(rows.rows.map((r) => r.margin_coin).sort()).toEqual(balances.map((b) => b.marginCoin).sort());
    for (const row of rows.rows) {
      expect({ coin: row.margin_coin, negative: new Decimal(row.lowest).isNegative() }).toEqual({
        coin: row.margin_coin,
        negative: false,
      });
      const exchange = balances.find((b) => b.marginCoin === row.margin_coin)!;
      expect({ coin: row.margin_coin, balance: new Decimal(row.balance).toFixed() }).toEqual({
        coin: row.margin_coin,
        balance: new Decimal(exchange.balance).toFixed(),
      });
    }
  });
});
