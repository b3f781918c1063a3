import { describe, expect, it } from 'vitest';

import { watchLostWindows } from '../../src/app/observability/lost-window-alerts.ts';
import { exchangeNow } from '../../src/app/services/exchange-now.ts';
import { planAndEnqueueSync } from '../../src/app/services/plan-and-enqueue-sync.ts';
import { ensureWindows, failWindow } from '../../src/ingest/coverage/window-store.ts';
import { formatInstant } from '../../src/ingest/time-arguments.ts';
import { createRootLogger } from '../../src/logging/logger.ts';
import { runCli } from '../helpers/cli.ts';
import { usePipeline } from '../helpers/pipeline.ts';
import { TEST_REDIS_URL } from '../helpers/test-redis.ts';

const DAY = 86_400_000;
// The exchange's clock stands 95 days after this machine's (the client keeps the local clock).
const LOCAL_NOW = Date.now();
const file = usePipeline('lostclock', { simulator: { now: LOCAL_NOW + 95 * DAY }, workers: false });
const log = createRootLogger({ level: 'silent' });

interface StatusJson {
  ok: boolean;
  accounts: { name: string; lost: { stream: string; scope: string; start: string; end: string }[] }[];
}

describe('lost windows on the exchange clock, with the local clock 95 days behind it', () => {
  it('a window past the horizon by the exchange clock is named lost by the sync, recorded by the check and shown by status', async () => {
    const { runtime, accountId } = file.pipeline;
    // 20 .. 13 days ago here: well inside the 90 days locally, 115 .. 108 days ago on the exchange.
    const start = Math.floor((LOCAL_NOW - 20 * DAY) / DAY) * DAY;
    const [window] = await ensureWindows(runtime.pool, [
      { accountId, stream: 'positions', scope: 'USDT-FUTURES', start, end: start + 7 * DAY },
    ]);
    await failWindow(runtime.pool, window!.id, 'ExchangeServerError: 500', true);

    // The sync judges on the exchange's clock: it names the window lost and does not read it again.
    const account = await runtime.accounts.get('demo');
    const sync = await planAndEnqueueSync(runtime, account, { stream: 'positions' });
    const said = `positions USDT-FUTURES ${formatInstant(start)} .. ${formatInstant(start + 7 * DAY)} never finished`;
    expect(sync.notes.some((note) => note.startsWith(said))).toBe(true);
    expect(sync.windows.map((w) => w.id)).not.toContain(window!.id);

    // The worker's check, wired as the worker wires it, records exactly that window.
    const check = watchLostWindows({
      pool: runtime.pool,
      log,
      checkAtStart: false,
      exchangeNow: (id: string) => exchangeNow(runtime, id),
    });
    try {
      const recorded = await check.check();
      expect(recorded.map((w) => w.windowId)).toEqual([window!.id]);
    } finally {
      check.close();
    }
    const rows = await runtime.pool.query<{ window_id: string }>('SELECT window_id FROM lost_window');
    expect(rows.rows.map((r) => r.window_id)).toEqual([window!.id]);

    // status shows it and exits 1.
    const env = { DATABASE_URL: file.db.url, REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: runtime.prefix };
    const result = runCli(['status', '--json', '--account', 'demo'], env);
    const status = JSON.parse(result.stdout) as StatusJson;
    expect(status.accounts[0]!.lost).toEqual([
      expect.objectContaining({
        stream: 'positions',
        scope: 'USDT-FUTURES',
        start: new Date(start).toISOString(),
        end: new Date(start + 7 * DAY).toISOString(),
      }),
    ]);
    expect(result.status).toBe(1);
  });
});
