import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { JOB, QUEUE } from '../../jobs/definitions.ts';
import { alertOnRuns } from '../../src/app/observability/alert-on-runs.ts';
import { type AlertSender, createAlertSender } from '../../src/app/observability/alert-sender.ts';
import { startSuccessHeartbeat } from '../../src/app/observability/success-heartbeat.ts';
import { logger } from '../../src/logging/logger.ts';
import { type Pipeline, startPipeline } from '../helpers/pipeline.ts';
import { useTestDatabase } from '../helpers/test-database.ts';

const HOUR = 3_600_000;
const db = useTestDatabase('alerts');
let pipeline: Pipeline;
let receiver: http.Server;
let sender: AlertSender;
const received: Record<string, unknown>[] = [];
/** How many of the next POSTs the receiver refuses (500), to see the sender retry. */
let refuseNext = 0;
let refused = 0;

beforeAll(async () => {
  receiver = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      if (refuseNext > 0) {
        refuseNext -= 1;
        refused += 1;
        response.writeHead(500).end();
        return;
      }
      received.push({ ...(JSON.parse(body) as Record<string, unknown>), contentType: request.headers['content-type'] });
      response.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/T000/B000/secret-path`;
  sender = createAlertSender({ url, log: logger('alerts'), baseDelayMs: 50 });
  pipeline = await startPipeline({ databaseUrl: db.url });
  pipeline.startWorkers({ runListeners: [alertOnRuns(pipeline.runtime.pool, sender)] });
});
afterAll(async () => {
  await pipeline?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

async function alertFor(event: string): Promise<Record<string, unknown>> {
  for (let i = 0; ; i += 1) {
    const found = received.find((alert) => alert.event === event);
    if (found) return found;
    if (i > 300) throw new Error(`no ${event} alert received`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('alerts', () => {
  it('POSTs a Slack-compatible alert when a nightly account sync fails, retried past a refusing webhook, no secret in it', async () => {
    refuseNext = 2;
    const { runtime, sim } = pipeline;
    // An account id nobody registered: the sync-account job fails for good (one attempt).
    await runtime.queues
      .get(QUEUE.sync)
      .add(JOB.syncAccount, { accountId: '00000000-0000-4000-8000-00000000dead', runId: 'night' }, { attempts: 1 });
    const alert = await alertFor('sync_failed');
    expect(refused).toBe(2);
    expect(alert.contentType).toBe('application/json');
    expect(alert.text).toMatch(/^ledgerline: sync FAILED for 00000000-0000-4000-8000-00000000dead: sync-account: /);
    expect(alert).toMatchObject({ kind: 'sync', accountId: '00000000-0000-4000-8000-00000000dead', account: null });
    expect(alert.failures).toEqual([expect.stringMatching(/^sync-account: /)]);
    const body = JSON.stringify(alert);
    for (const secret of [sim.demo.secretKey, sim.demo.passphrase, sim.demo.apiKey]) expect(body).not.toContain(secret);
  });

  it('the heartbeat alerts once when no sync succeeded for ALERT_NO_SUCCESS_HOURS, counting from the worker start', async () => {
    let now = Date.now();
    const heartbeat = startSuccessHeartbeat({
      pool: pipeline.runtime.pool,
      sender,
      log: logger('alerts'),
      noSuccessAfterMs: 26 * HOUR,
      clock: () => now,
    });
    try {
      await heartbeat.check();
      now += 25 * HOUR;
      await heartbeat.check();
      await sender.settled();
      expect(received.filter((a) => a.event === 'no_recent_success')).toHaveLength(0);
      now += 2 * HOUR;
      await heartbeat.check();
      await heartbeat.check();
      const alert = await alertFor('no_recent_success');
      expect(alert.text).toBe('ledgerline: no sync succeeded for 26 h (last: never)');
      await sender.settled();
      expect(received.filter((a) => a.event === 'no_recent_success')).toHaveLength(1);
    } finally {
      heartbeat.close();
    }
  });
});
