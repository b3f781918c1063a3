import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createAlertSender } from '../../src/app/observability/alert-sender.ts';
import { watchShapeDrift } from '../../src/app/observability/shape-drift-alerts.ts';
import { type MetricsServer, startMetricsServer } from '../../src/app/observability/start-metrics-server.ts';
import { startBackfill } from '../../src/app/services/backfill.ts';
import { windowProgress } from '../../src/ingest/coverage/window-progress.ts';
import { logger } from '../../src/logging/logger.ts';
import { positionHorizon } from '../../src/streams/positions/endpoint.ts';
import { runCli } from '../helpers/cli.ts';
import { storedSpot, storedTransfers, truthSpot, truthTransfers } from '../helpers/ground-truth.ts';
import { type Pipeline, startPipeline } from '../helpers/pipeline.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { TEST_REDIS_URL } from '../helpers/test-redis.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

/*
 * The simulator answering in the shapes the real exchange has been recorded giving (string
 * requestTime, an unlisted envelope field, positions without posMode, with ctime/utime and unlisted
 * fields, the deposit cursor as endId only): a 60-day backfill of every stream stores exactly the
 * simulator's records, and the drift is counted (/metrics), shown (status) and alerted once.
 */

const DAY = 86_400_000;
const db = useTestDatabase('recordedshapes');
let pipeline: Pipeline;
let metrics: MetricsServer;
let webhook: WebhookReceiver;

beforeAll(async () => {
  pipeline = await startPipeline({ databaseUrl: db.url, simulator: { answerShapes: 'recorded' } });
  metrics = await startMetricsServer(pipeline.runtime, { host: '127.0.0.1', port: 0 }, logger('metrics'));
  webhook = await startWebhookReceiver();
});
afterAll(async () => {
  await metrics?.close();
  await pipeline?.close();
  await webhook?.close();
});

async function waitForWindows(ids: string[], timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const progress = await windowProgress(pipeline.runtime.pool, ids);
    if (progress.every((p) => p.done + p.failed === p.total)) return progress;
    if (Date.now() > deadline) throw new Error(`windows not finished: ${JSON.stringify(progress)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const endsBefore = (lines: string[], from: number, to: number) =>
  lines.filter((line) => {
    const ts = Number(line.split('|').at(-1));
    return ts >= from && ts < to;
  });

/** Every stored position with every column (posMode as NULL where absent), as the exchange's strings. */
async function storedPositionLines(pool: pg.Pool, accountId: string): Promise<string[]> {
  const result = await pool.query<{ line: string }>(
    `SELECT concat_ws('|', position_id, symbol, margin_coin, hold_side::text, coalesce(pos_mode::text, 'NULL'),
              margin_mode::text, open_avg_price::text, close_avg_price::text, open_total_pos::text,
              close_total_pos::text, pnl::text, net_profit::text, total_funding::text, open_fee::text,
              close_fee::text, (extract(epoch from created_time) * 1000)::bigint,
              (extract(epoch from updated_time) * 1000)::bigint) AS line
       FROM futures_position WHERE account_id = $1`,
    [accountId],
  );
  return result.rows.map((r) => r.line).sort();
}

/** The simulator's positions updated in [from, to), posMode as the recorded shape leaves it: absent. */
function truthPositionLines(from: number, to: number): string[] {
  const fields = ['symbol', 'marginCoin', 'holdSide'];
  const money = ['marginMode', 'openAvgPrice', 'closeAvgPrice', 'openTotalPos', 'closeTotalPos', 'pnl'];
  const rest = ['netProfit', 'totalFunding', 'openFee', 'closeFee'];
  return pipeline.sim
    .truth('positions')
    .map((r) => r as unknown as Record<string, string>)
    .filter((r) => Number(r.utime ?? r.uTime) >= from && Number(r.utime ?? r.uTime) < to)
    .map((r) =>
      [
        r.positionId,
        ...fields.map((f) => r[f]),
        'NULL',
        ...money.map((f) => r[f]),
        ...rest.map((f) => r[f]),
        r.ctime ?? r.cTime,
        r.utime ?? r.uTime,
      ].join('|'),
    )
    .sort();
}

function sample(page: string, series: string): number {
  const line = page.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

describe('a backfill against the simulator answering in the recorded shapes', () => {
  it('stores exactly the simulator truth (0 missing, 0 extra), and counts, shows and alerts the drift', async () => {
    const workers = pipeline.startWorkers();
    const { runtime, sim, accountId } = pipeline;
    const { pool } = runtime;
    const now = Date.now();
    const from = now - 60 * DAY;
    const started = await startBackfill(runtime, { account: 'demo', stream: 'all', from, to: now, now });
    const progress = await waitForWindows(started.windows.map((w) => w.id));
    expect(progress.every((p) => p.failed === 0)).toBe(true);
    await workers.close();

    // The records: the same as the documented shapes would give, posMode left null (it was not sent).
    const spot = await storedSpot(pool, accountId);
    expect(spot.length).toBeGreaterThan(20);
    expect(spot).toEqual(endsBefore(truthSpot(sim), from, now));
    const transfers = await storedTransfers(pool, accountId);
    expect(transfers.length).toBeGreaterThan(20);
    expect(transfers).toEqual(endsBefore(truthTransfers(sim), from, now));
    const positions = await storedPositionLines(pool, accountId);
    expect(positions.length).toBeGreaterThan(20);
    expect(positions).toEqual(truthPositionLines(Math.max(from, positionHorizon(now)), now));
    // What was sent is kept as sent, unlisted fields included.
    const raw = await pool.query<{ raw: Record<string, unknown> }>('SELECT raw FROM futures_position LIMIT 1');
    expect(raw.rows[0]!.raw).toMatchObject({ leverage: '10', achievedProfits: null });
    expect(Object.keys(raw.rows[0]!.raw)).toEqual(expect.arrayContaining(['ctime', 'utime']));

    // The drift, counted per record (envelope fields per answer) in /metrics.
    const page = await (await fetch(`${metrics.url}/metrics`)).text();
    const drift = (endpoint: string, field: string, kind: string) =>
      sample(page, `ledgerline_exchange_shape_drift_total{endpoint="${endpoint}",field="${field}",kind="${kind}"}`);
    expect(page).toContain('# TYPE ledgerline_exchange_shape_drift_total counter');
    expect(drift('historyPosition', 'posMode', 'absent')).toBe(positions.length);
    expect(drift('historyPosition', 'leverage', 'unlisted')).toBe(positions.length);
    expect(drift('historyPosition', 'achievedProfits', 'unlisted')).toBe(positions.length);
    const answered = sample(page, 'ledgerline_exchange_requests_total{endpoint="spotRecord",status="200"}');
    expect(answered).toBeGreaterThan(0);
    expect(drift('spotRecord', 'requestTime', 'type')).toBe(answered);
    expect(drift('spotRecord', 'httpCode', 'unlisted')).toBe(answered);
    expect(drift('allSubDepositWithdrawal', 'requestTime', 'type')).toBeGreaterThan(0);
    // Spot and transfer records themselves did not drift; nothing was refused.
    expect(page).not.toMatch(
      /ledgerline_exchange_shape_drift_total\{endpoint="spotRecord",field="(?!requestTime|httpCode)/,
    );
    expect(page).not.toMatch(/^ledgerline_exchange_answers_refused_total\{/m);

    // status (its own process) says so in one line per drift.
    const env = { DATABASE_URL: db.url, REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: runtime.prefix };
    const status = runCli(['status'], env);
    expect(status.stderr).toBe('');
    expect(status.stdout).toMatch(
      new RegExp(
        `history-position: posMode absent in ${positions.length.toLocaleString('en-US')} records since \\d{4}-`,
      ),
    );
    expect(status.stdout).toMatch(/spot-record: requestTime not of its documented type in [\d,]+ answers since/);
    const json = JSON.parse(runCli(['status', '--json'], env).stdout) as {
      exchangeShape: { endpoint: string; field: string; kind: string; count: number }[];
    };
    expect(json.exchangeShape).toContainEqual(
      expect.objectContaining({
        endpoint: 'history-position',
        field: 'posMode',
        kind: 'absent',
        count: positions.length,
      }),
    );

    // One alert per new kind through the alert channel; a second check sends none.
    const sender = createAlertSender({ url: webhook.url, log: logger('alerts'), attempts: 1 });
    const watch = watchShapeDrift({ pool, sender, log: logger('alerts'), checkAtStart: false });
    const first = await watch.check();
    const second = await watch.check();
    watch.close();
    await sender.settled();
    expect(first.length).toBe(json.exchangeShape.length);
    expect(second).toEqual([]);
    expect(webhook.received).toHaveLength(first.length);
    expect(webhook.received).toContainEqual(
      expect.objectContaining({
        event: 'exchange_shape_drift',
        endpoint: 'historyPosition',
        field: 'posMode',
        kind: 'absent',
      }),
    );
  }, 150_000);
});
