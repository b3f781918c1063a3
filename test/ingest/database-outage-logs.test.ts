import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startBackfill } from '../../src/app/services/backfill.ts';
import { createRootLogger, type Logger, setRootLogger } from '../../src/logging/logger.ts';
import { CuttableRelay } from '../helpers/cuttable-relay.ts';
import { type Pipeline, startPipeline } from '../helpers/pipeline.ts';
import { useTestDatabase } from '../helpers/test-database.ts';

const DAY = 86_400_000;

const db = useTestDatabase('outagelogs');
let relay: CuttableRelay;
let pipeline: Pipeline;
const lines: Record<string, unknown>[] = [];
const texts: string[] = [];

function capturingLogger(): Logger {
  return createRootLogger({
    level: 'info',
    pretty: false,
    destination: {
      write(text: string) {
        texts.push(text);
        lines.push(JSON.parse(text) as Record<string, unknown>);
      },
    },
  });
}

beforeAll(async () => {
  const direct = new URL(db.url);
  relay = await CuttableRelay.start(direct.hostname, Number(direct.port || 5432));
  const relayed = new URL(db.url);
  relayed.hostname = '127.0.0.1';
  relayed.port = String(relay.port);
  setRootLogger(capturingLogger());
  pipeline = await startPipeline({ databaseUrl: relayed.toString() });
});
afterAll(async () => {
  relay?.restore();
  await pipeline?.close();
  await relay?.close();
});

async function until(what: string, condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !condition();) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('a database outage while windows run', () => {
  it('logs each window failure before trying to record it, and never a pg client', async () => {
    const { sim, runtime } = pipeline;
    // Slow answers, so windows are mid-page when the database goes.
    sim.faults.set({ latencyMs: 400, paths: ['/api/v2/tax/spot-record'] });
    const now = Date.now();
    const started = await startBackfill(runtime, {
      account: 'demo',
      stream: 'spot',
      from: now - 120 * DAY,
      to: now,
      now,
    });
    expect(started.windows.length).toBeGreaterThan(1);
    const workers = pipeline.startWorkers({ concurrency: 4 });
    try {
      await until('a window to start', () => lines.some((l) => l.msg === 'ingest window started'));
      relay.cut();
      await until('a window failure in the log', () => lines.some((l) => l.msg === 'ingest window failed'));
    } finally {
      sim.faults.clear();
      relay.restore();
      await workers.close();
    }
    // Connections idle in the pool when it goes: their loss is logged too. With the workers closed
    // no job can take them between the cut and the socket's end (their loss would then be that
    // job's error, as CI met once in a while when this ran beside the windows).
    const idle = await Promise.all([runtime.pool.connect(), runtime.pool.connect()]);
    for (const client of idle) client.release();
    relay.cut();
    try {
      await until('the idle connections lost', () =>
        lines.some((l) => String(l.msg).startsWith('database connection lost')),
      );
    } finally {
      relay.restore();
    }
    const failed = lines.find((l) => l.msg === 'ingest window failed')!;
    expect(failed).toMatchObject({ stream: 'spot', err: { message: expect.any(String) as unknown } });
    expect(started.windows.map((w) => w.id)).toContain(failed.windowId);
    // A pg-pool error carries the pool's client: its connection settings and the backend's cancel key.
    const all = texts.join('\n');
    expect(all).not.toMatch(/"client"|connectionParameters|processID|secretKey|"password"/);
  });

  it('serializes an error to its class, message, code, stack and cause: nothing else it carries', () => {
    texts.length = 0;
    const client = new pg.Client({ connectionString: 'postgresql://ledger:hunter2@127.0.0.1:1/db' });
    const error = Object.assign(
      new Error('Connection terminated unexpectedly', { cause: new Error('socket hang up') }),
      {
        code: '57P01',
        client,
      },
    );
    capturingLogger().warn({ err: error }, 'idle database connection lost');
    const line = JSON.parse(texts[0]!) as { err: Record<string, unknown> };
    expect(Object.keys(line.err).sort()).toEqual(['cause', 'code', 'message', 'stack', 'type']);
    expect(line.err).toMatchObject({
      type: 'Error',
      message: 'Connection terminated unexpectedly',
      code: '57P01',
      cause: { type: 'Error', message: 'socket hang up' },
    });
    expect(texts[0]).not.toContain('hunter2');
  });
});
