import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseEnv } from 'node:util';

import { afterAll, describe, expect, it } from 'vitest';

import { createMetricsRegistry } from '../../src/app/observability/scrape-metrics.ts';
import { dropDatabase } from '../../src/db/ensure-database.ts';
import { BIN, exited } from '../helpers/cli.ts';
import { freshDatabaseUrl } from '../helpers/test-database.ts';
import { randomPrefix, TEST_REDIS_URL } from '../helpers/test-redis.ts';

/**
 * A stranger's first hour, as the README writes it: `npm run demo -- --serve`, then the README's
 * next commands exactly as written (read from the README itself, so the two cannot drift), in
 * the demo's directory, with no variable set by hand: the demo's settings file is what points
 * them at its database. The demo runs whole as a process (src/demo/main.ts), on the simulator's
 * tiny data and a budget scaled by 20: its own database and queues, dropped afterwards.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
// What `npm run demo` runs (package.json): node with tsx's loader in its own process, no tsx parent.
const RUN_DEMO = [process.execPath, '--import', import.meta.resolve('tsx')];
const DEMO = path.join(ROOT, 'src/demo/main.ts');

/** The shell lines of the README's "Exploring what it built", in order, comments cut off. */
function exploringCommands(): string[] {
  const section = README.split(/^## /m).find((part) => part.startsWith('Exploring what it built'))!;
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  return blocks
    .flatMap((block) => block.split('\n'))
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter(Boolean);
}

const directory = mkdtempSync(path.join(tmpdir(), 'll-walkthrough-'));
const database = new URL(freshDatabaseUrl('walkthrough')).pathname.slice(1);
const server = new URL(freshDatabaseUrl('walkthrough'));
server.pathname = '/postgres';
// What the stranger's shell holds: nothing of ledgerline's but a free port for the page and quiet logs.
const shell = {
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '/tmp',
  NODE_ENV: 'development',
  LOG_LEVEL: 'warn',
  WEB_PORT: '0',
};
// The demo's run alone is told where the servers are, and to be small and quick.
const demoEnv = {
  ...shell,
  DATABASE_URL: server.toString(),
  REDIS_URL: TEST_REDIS_URL,
  DEMO_DATABASE: database,
  QUEUE_PREFIX: randomPrefix('walk').replaceAll(':', '-').slice(0, 20),
  EXCHANGE_RATE_FACTOR: '20',
};

function start(command: string[], env: Record<string, string>): ChildProcess & { out: () => string } {
  const child = spawn(command[0]!, command.slice(1), { cwd: directory, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return Object.assign(child, { out: () => out });
}

async function until(child: ChildProcess & { out: () => string }, text: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!child.out().includes(text)) {
    if (child.exitCode !== null) throw new Error(`exited ${child.exitCode} before "${text}":\n${child.out()}`);
    if (Date.now() > deadline) throw new Error(`no "${text}" within ${ms} ms:\n${child.out()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** `npx ledgerline <args>` as the README writes it, in the demo's directory, from the stranger's shell. */
async function ledgerline(line: string): Promise<{ status: number | null; out: string }> {
  expect(line).toMatch(/^npx ledgerline /);
  const child = start([process.execPath, BIN, ...line.replace(/^npx ledgerline /, '').split(/\s+/)], shell);
  const status = await exited(child);
  return { status, out: child.out() };
}

const children: ChildProcess[] = [];
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  const url = new URL(server);
  url.pathname = `/${database}`;
  await dropDatabase(url.toString()).catch(() => undefined);
  rmSync(directory, { recursive: true, force: true });
});

describe("the README's first hour: the demo, then its next commands as written", () => {
  it('npm run demo -- --serve, then status, runs, reconcile and export succeed on its data; after Ctrl-C, web', async () => {
    const commands = exploringCommands();
    expect(commands[0]).toBe('npm run demo -- --serve');
    const next = commands.slice(1);
    expect(next.map((c) => c.split(/\s+/)[2])).toEqual(['status', 'runs', 'reconcile', 'export', 'web']);

    // `npm run demo -- --serve` is `node --import tsx src/demo/main.ts --serve` (package.json), here on tiny data.
    const scripts = (
      JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    expect(scripts.demo).toBe('node --import tsx src/demo/main.ts');
    const demo = start([...RUN_DEMO, DEMO, '--serve', '--scale', 'tiny'], demoEnv);
    children.push(demo);
    await until(demo, 'serving until Ctrl-C', 400_000);
    // The environment it printed is the one it wrote for the CLI.
    const written = parseEnv(readFileSync(path.join(directory, '.ledgerline-demo.env'), 'utf8'));
    expect(written.DATABASE_URL).toMatch(new RegExp(`/${database}$`));
    expect(demo.out()).toContain(`export DATABASE_URL=${written.DATABASE_URL}`);
    expect(demo.out()).toContain(`with the token ${written.LEDGERLINE_WEB_TOKEN}`);
    // The closing note's tax block: the rules' own tax years and zones, each year whole or not.
    expect(demo.out()).toMatch(/^ {2}tax years {7}uk \S+\.\.\S+ Europe\/London, de \S+\.\.\S+ Europe\/Berlin/m);
    expect(demo.out()).toMatch(
      /^ {4}uk \d{4}-\d{2} +complete: (true|false) {2}disposals \d+, proceeds \d+, .* net -?\d+ GBP$/m,
    );
    expect(demo.out()).toMatch(/^ {4}de \d{4} +complete: (true|false) {2}§23 private sales net -?\d+ /m);
    expect(demo.out()).toMatch(/^ {2}flagged rows {4}realized-gains uk unknown-cost \d+, .*; de unknown-cost \d+/m);
    // Then the summaries again after the (synthetic) accountant's costs and proceeds, in a folder of their own.
    // The years as read are printed once (the tax years block): the accountant's block gives "after" alone.
    expect(demo.out()).toMatch(/^ {4}uk \d{4}-\d{2} +after {2}disposals \d+, /m);
    expect(demo.out()).not.toMatch(/ before disposals /);
    // A first run states its ratio to its bound; no worker log line (pino's JSON) reaches the terminal.
    expect(demo.out()).toMatch(/wall \/ bound \d+\.\d\d/);
    expect(demo.out()).not.toMatch(/"level":/);
    expect(demo.out()).toMatch(/^ {2}after files {5}\S*after-accountant\/\S+_uk_\S+\.csv, /m);

    for (const line of next.filter((c) => !c.includes(' web'))) {
      const result = await ledgerline(line);
      expect(result.status, `${line}\n${result.out}`).toBe(0);
      if (line.includes(' runs')) {
        // The demo's backfill and reconciliation, recorded as runs.
        expect(result.out).toMatch(/reconciliation\s+succeeded\s+demo/);
        expect(result.out).toMatch(/sync\s+succeeded\s+demo/);
      }
      if (line.includes(' export')) expect(result.out).toMatch(/^wrote spot-ledger of demo, .*: [1-9]\d* rows/m);
    }
    // The demo's runs reach the alert rule's metric as the worker's do.
    const { createRuntime } = await import('../../jobs/composition/create-runtime.ts');
    const { loadConfig } = await import('../../src/config/config.ts');
    const runtime = createRuntime(loadConfig({ ...written, NODE_ENV: 'test' }));
    try {
      const metrics = await createMetricsRegistry(runtime).metrics();
      expect(metrics).toMatch(/^ledgerline_last_successful_sync_timestamp_seconds\{account="demo"\} \d+/m);
    } finally {
      await runtime.close();
    }

    demo.kill('SIGINT');
    expect(await exited(demo), demo.out()).toBe(0);
    // Ctrl-C says, in one line, what stopped and what is kept.
    expect(demo.out()).toMatch(
      new RegExp(`^stopped: the page, the worker and the exchange simulator; kept: the database ${database}, `, 'm'),
    );

    // A rerun on the same database: no first-run ratio; it says what it read and exported again instead.
    const rerun = start([...RUN_DEMO, DEMO, '--scale', 'tiny'], demoEnv);
    children.push(rerun);
    expect(await exited(rerun), rerun.out()).toBe(0);
    expect(rerun.out()).not.toMatch(/wall \/ bound/);
    const again = /^ {2}rerun {11}.*, (\d+) files exported again, (\d+) kept /m.exec(rerun.out());
    expect(again, rerun.out()).not.toBeNull();
    // Nothing the files read changed: every file is kept as the first run wrote it.
    expect(Number(again![1])).toBe(0);
    expect(Number(again![2])).toBeGreaterThan(20);

    const web = start(
      [
        process.execPath,
        BIN,
        ...next
          .at(-1)!
          .replace(/^npx ledgerline /, '')
          .split(/\s+/),
      ],
      shell,
    );
    children.push(web);
    await until(web, 'listening on http://', 120_000);
    const url = /listening on (http:\/\/\S+)/.exec(web.out())![1]!;
    expect((await fetch(`${url}/livez`)).status).toBe(200);
    // The token the demo wrote is the page's: it started with it (it refuses to start without one).
    expect((await fetch(`${url}/login`)).status).toBe(200);
    web.kill('SIGINT');
    expect(await exited(web), web.out()).toBe(0);
  }, 900_000);
});
