import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { dropDatabase } from '../../src/db/ensure-database.ts';
import { plainText, runInPty } from '../helpers/pty.ts';
import { freshDatabaseUrl } from '../helpers/test-database.ts';
import { randomPrefix, TEST_REDIS_URL } from '../helpers/test-redis.ts';

/**
 * `npm run demo -- --serve` at a terminal, stopped the way a person stops it: Ctrl-C typed into a
 * real pseudo-terminal, so the terminal sends SIGINT to every process in its foreground group
 * (tsx, the demo and the simulator it started), not to one chosen process as a pipe test does.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
// What `npm run demo` runs (package.json): node with tsx's loader in its own process, no tsx parent.
const RUN_DEMO = [process.execPath, '--import', import.meta.resolve('tsx')];
const DEMO = path.join(ROOT, 'src/demo/main.ts');

const directory = mkdtempSync(path.join(tmpdir(), 'll-serve-terminal-'));
const database = new URL(freshDatabaseUrl('serveterm')).pathname.slice(1);
/** The second test's: a demo interrupted while it reads. */
const interruptedDatabase = new URL(freshDatabaseUrl('ctrlcterm')).pathname.slice(1);
const server = new URL(freshDatabaseUrl('serveterm'));
server.pathname = '/postgres';

/** A demo's environment of its own: its database and queues, the servers' addresses. */
function demoEnv(name: string, more: Record<string, string> = {}): Record<string, string> {
  return {
    NODE_ENV: 'development',
    LOG_LEVEL: 'warn',
    DATABASE_URL: server.toString(),
    REDIS_URL: TEST_REDIS_URL,
    DEMO_DATABASE: name,
    QUEUE_PREFIX: randomPrefix(name.slice(3, 12)).replaceAll(':', '-').slice(0, 20),
    ...more,
  };
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Whether anything still answers at `url` (a process left behind after Ctrl-C would). */
async function answers(url: string): Promise<boolean> {
  try {
    await fetch(url, { signal: AbortSignal.timeout(2_000) });
    return true;
  } catch {
    return false;
  }
}

async function pressCtrlCTwice(run: { press(keys: string): void }): Promise<void> {
  run.press('\x03');
  await new Promise((resolve) => setTimeout(resolve, 50));
  run.press('\x03');
}

afterAll(async () => {
  for (const name of [database, interruptedDatabase]) {
    const url = new URL(server);
    url.pathname = `/${name}`;
    await dropDatabase(url.toString()).catch(() => undefined);
  }
  rmSync(directory, { recursive: true, force: true });
});

describe('the demo served at a terminal, stopped with Ctrl-C', () => {
  it('says in one line what stopped and what is kept, exits 0, and leaves no page or simulator running', async () => {
    const webPort = await freePort();
    const run = runInPty(
      ['--serve', '--scale', 'tiny'],
      demoEnv(database, { WEB_PORT: String(webPort), EXCHANGE_RATE_FACTOR: '20' }),
      { entry: [...RUN_DEMO, DEMO], cwd: directory },
    );
    await run.waitFor(/sign in at http:\/\/\S+ with the token \S+/, 400_000);
    const served = plainText(run.screen());
    const simulator = /exchange simulator at (http:\/\/127\.0\.0\.1:\d+)/.exec(served)?.[1];
    const page = /sign in at (http:\/\/\S+) with the token/.exec(served)?.[1];
    expect(simulator, served).toBeDefined();
    expect(page).toBe(`http://127.0.0.1:${webPort}`);
    // The page starts after the line that names it: wait until it answers.
    const deadline = Date.now() + 30_000;
    while (!(await answers(`${page}/healthz`)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    expect(await answers(`${page}/healthz`)).toBe(true);
    expect(await answers(`${simulator}/`)).toBe(true);

    // Ctrl-C twice, 50 ms apart: the echo tsx passes on when the demo is busy, or a person's double tap.
    await pressCtrlCTwice(run);
    expect(await run.exited, plainText(run.screen())).toBe(0);
    const screen = plainText(run.screen());
    const after = screen.slice(screen.indexOf('serving until Ctrl-C'));
    const stopped = after.split('\n').filter((line) => line.startsWith('stopped: '));
    expect(stopped).toEqual([
      `stopped: the page, the worker and the exchange simulator; kept: the database ${database}, ` +
        `the files in exports/ and .ledgerline-demo.env (npm run demo again reuses them)`,
    ]);
    // Nothing else after Ctrl-C but the terminal's echo of it: no stack, no error, no log line.
    const rest = after
      .split('\n')
      .slice(1)
      .filter((line) => line.trim() !== '' && line.trim() !== '^C' && !line.startsWith('stopped: '))
      .filter((line) => !line.startsWith('  sign in at ') && !line.startsWith('ledgerline web listening on '));
    expect(rest).toEqual([]);
    expect(after).not.toMatch(/Error|"level"|\n\s+at /);
    // Every process of the demo is gone: neither the page nor the simulator answers.
    expect(await answers(`${page}/healthz`)).toBe(false);
    expect(await answers(`${simulator}/`)).toBe(false);
  }, 480_000);

  it('interrupted while it reads, says how far it got and how to resume, as the backfill does', async () => {
    // At the exchange's own pace (no scaled budget), the reading lasts long enough to interrupt.
    const run = runInPty(['--scale', 'tiny'], demoEnv(interruptedDatabase), {
      entry: [...RUN_DEMO, DEMO],
      cwd: directory,
    });
    await run.waitFor(/futures-ledger +\|[█░]+\| [1-9]\d*\/\d+ windows/, 300_000);
    await pressCtrlCTwice(run);
    expect(await run.exited).toBe(130);
    const screen = plainText(run.screen());
    const interrupted = /^interrupted: (\d+) of (\d+) windows done; run the same command to resume$/m.exec(screen);
    expect(interrupted, screen).not.toBeNull();
    expect(Number(interrupted![1])).toBeGreaterThan(0);
    expect(Number(interrupted![1])).toBeLessThan(Number(interrupted![2]));
    expect(screen).not.toMatch(/"level"|\n\s+at /);
  }, 360_000);
});
