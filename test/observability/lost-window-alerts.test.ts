import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type AlertSender, createAlertSender } from '../../src/app/observability/alert-sender.ts';
import { watchLostWindows } from '../../src/app/observability/lost-window-alerts.ts';
import { createMetricsRegistry } from '../../src/app/observability/scrape-metrics.ts';
import { SecretBox } from '../../src/crypto/secret-box.ts';
import { ensureWindows, failWindow, type WindowKey } from '../../src/ingest/coverage/window-store.ts';
import { planRetries } from '../../src/ingest/retry-plan.ts';
import { createRootLogger } from '../../src/logging/logger.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 24, 12);
const at = (iso: string) => Date.parse(`${iso}T00:00:00Z`);
const db = useTestDatabase('lostwindows');
const log = createRootLogger({ level: 'silent' });
let pool: pg.Pool;
let receiver: WebhookReceiver;
let sender: AlertSender;
let accountId: string;

beforeAll(async () => {
  pool = new pg.Pool({ connectionString: db.url });
  receiver = await startWebhookReceiver();
  sender = createAlertSender({ url: receiver.url, log, baseDelayMs: 50 });
  const box = new SecretBox(Buffer.alloc(32, 7));
  const account = await db.prisma.account.create({
    data: {
      name: 'acme',
      uid: '1',
      baseUrl: 'http://x',
      apiKey: 'k',
      secretEnc: box.seal('s'),
      passphraseEnc: box.seal('p'),
    },
  });
  accountId = account.id;
});
afterAll(async () => {
  await pool.end();
  await receiver.close();
});

const positions = (scope: string, start: string, end: string): WindowKey => ({
  accountId,
  stream: 'positions',
  scope,
  start: at(start),
  end: at(end),
});

describe('a window lost past the horizon', () => {
  it('is recorded with its facts and alerted once, however many workers check and however often', async () => {
    // The 90-day horizon at NOW lies at 2026-08-26 (plus the safety margin).
    const [failedLost, neverRead, done, straddling, spot] = await ensureWindows(pool, [
      positions('USDT-FUTURES', '2026-05-01', '2026-05-08'),
      positions('COIN-FUTURES', '2026-05-08', '2026-05-15'),
      positions('USDT-FUTURES', '2026-05-15', '2026-05-22'),
      positions('USDT-FUTURES', '2026-08-20', '2026-09-05'),
      { accountId, stream: 'spot', scope: '', start: at('2026-01-01'), end: at('2026-01-08') },
    ]);
    await failWindow(pool, failedLost!.id, 'WINDOW_LOST: its records are lost', true);
    await failWindow(pool, straddling!.id, 'ExchangeUnavailableError: 503', true);
    await failWindow(pool, spot!.id, 'ExchangeUnavailableError: 503', true);
    await pool.query(`UPDATE sync_window SET status = 'done' WHERE id = $1`, [done!.id]);

    // Two workers check at the same moment, then both again.
    const workers = [1, 2].map(() =>
      watchLostWindows({ pool, sender, log, checkAtStart: false, exchangeNow: async () => NOW }),
    );
    try {
      const found = await Promise.all(workers.map((w) => w.check()));
      const again = await Promise.all(workers.map((w) => w.check()));
      await sender.settled();

      expect(
        found
          .flat()
          .map((w) => w.windowId)
          .sort(),
      ).toEqual([failedLost!.id, neverRead!.id].sort());
      expect(again.flat()).toEqual([]);
      const alerts = receiver.received.filter((a) => a.event === 'window_lost');
      expect(alerts).toHaveLength(2);
      const first = alerts.find((a) => a.windowId === failedLost!.id)!;
      expect(first).toMatchObject({
        account: 'acme',
        accountId,
        stream: 'positions',
        scope: 'USDT-FUTURES',
        start: '2026-05-01T00:00:00.000Z',
        end: '2026-05-08T00:00:00.000Z',
      });
      expect(first.reason).toMatch(
        /^never finished \(failed: WINDOW_LOST: its records are lost\) and lies wholly behind the exchange's 3-month horizon \(it serves from 2026-08-2\d/,
      );
      expect(first.text).toMatch(
        /^ledgerline: positions USDT-FUTURES window 2026-05-01T00:00:00\.000Z \.\. 2026-05-08T00:00:00\.000Z of acme is LOST: never finished/,
      );
      const second = alerts.find((a) => a.windowId === neverRead!.id)!;
      expect(second.reason).toMatch(/^never finished \(pending\) and lies wholly behind/);

      // The record: one row per lost window, with what was lost, of whom and why.
      const rows = await pool.query<{
        window_id: string;
        account_id: string;
        stream: string;
        scope: string;
        reason: string;
      }>('SELECT window_id, account_id, stream, scope, reason FROM lost_window ORDER BY window_start');
      expect(rows.rows.map((r) => [r.window_id, r.account_id, r.stream, r.scope])).toEqual([
        [failedLost!.id, accountId, 'positions', 'USDT-FUTURES'],
        [neverRead!.id, accountId, 'positions', 'COIN-FUTURES'],
      ]);

      // The sync no longer retries exactly those; the straddling window is read again.
      const retries = await planRetries(pool, accountId, ['positions'], NOW);
      expect(retries.windows.map((w) => w.id)).toEqual([straddling!.id]);

      // A month on, the straddling window has passed the horizon too: one alert more, for it alone.
      const later = watchLostWindows({
        pool,
        sender,
        log,
        checkAtStart: false,
        exchangeNow: async () => NOW + 30 * DAY,
      });
      try {
        expect((await later.check()).map((w) => w.windowId)).toEqual([straddling!.id]);
        expect(await later.check()).toEqual([]);
      } finally {
        later.close();
      }
      await sender.settled();
      expect(receiver.received.filter((a) => a.event === 'window_lost')).toHaveLength(3);
      // And /metrics counts them.
      const registry = createMetricsRegistry({ pool, queues: { all: () => [] } });
      expect(await registry.getSingleMetricAsString('ledgerline_lost_windows')).toContain(
        'ledgerline_lost_windows{account="acme",stream="positions"} 3',
      );
    } finally {
      for (const worker of workers) worker.close();
    }
  });
});
