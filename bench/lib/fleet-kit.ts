/**
 * What bench:fleet and bench:fleet-night share: the simulator's admin routes, `ledgerline worker`
 * processes started as an operator starts them, and the bound the exchange's budgets put on a set
 * of requests.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';

import { QUEUE } from '../../jobs/definitions.ts';
import type { Runtime } from '../../jobs/runtime.ts';
import { PER_IP_PER_MINUTE } from '../../src/exchange/endpoints.ts';
import type { RequestLogEntry } from '../../src/simulator/request-log.ts';
import { ALL_ENDPOINTS, endpointNamed } from '../../src/streams/endpoints.ts';

const CLI = path.resolve(import.meta.dirname, '../../bin/ledgerline.js');

export interface Credentials {
  uid: string;
  apiKey: string;
  secretKey: string;
  passphrase: string;
}

export async function admin<T>(base: string, method: string, route: string, body?: unknown): Promise<T> {
  const response = await fetch(`${base}/__sim/${route}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error(`simulator ${method} ${route}: HTTP ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** `ledgerline worker` in a process of its own, as an operator starts it (default concurrency). */
export function spawnWorker(env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(process.execPath, [CLI, 'worker'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let errors = '';
  child.stderr!.on('data', (chunk: Buffer) => (errors = (errors + chunk.toString()).slice(-4000)));
  child.once('exit', (code, signal) => {
    if (code !== 0 && signal !== 'SIGTERM') console.error(`worker exited (${code ?? signal}): ${errors.trim()}`);
  });
  return child;
}

export function stopProcess(child: ChildProcess): Promise<void> {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done();
    child.once('exit', () => done());
    child.kill('SIGTERM');
  });
}

export interface Bound {
  /** The shortest time the budgets allow for the requests: the larger of the two below, s. */
  boundSeconds: number;
  /** The busiest (endpoint, UID) budget's requests over its per-second limit, s. */
  budgetBound: number;
  /** Every request over the per-IP cap (6000 per minute), s. */
  ipBound: number;
  busiest: string;
}

/** The bound the exchange's budgets put on the logged requests (`uidOfKey`: API key to UID). */
export function budgetBound(log: RequestLogEntry[], counted: number, uidOfKey: Map<string, string>): Bound {
  const endpointOfPath = new Map(ALL_ENDPOINTS.map((endpoint) => [endpoint.path, endpoint]));
  const perBudget = new Map<string, number>();
  for (const entry of log) {
    const endpoint = endpointOfPath.get(entry.path);
    if (!endpoint) continue;
    const owner = endpoint.keyedBy === 'uid' ? uidOfKey.get(entry.key ?? '') : 'ip';
    const key = `${endpoint.name}|${owner}`;
    perBudget.set(key, (perBudget.get(key) ?? 0) + 1);
  }
  let budget = 0;
  let busiest = '';
  for (const [key, requests] of perBudget) {
    const seconds = requests / endpointNamed(key.split('|')[0]!).perSecond;
    if (seconds > budget) [budget, busiest] = [seconds, `${key} (${requests} requests)`];
  }
  const ipBound = counted / (PER_IP_PER_MINUTE / 60);
  return { boundSeconds: Math.max(budget, ipBound), budgetBound: budget, ipBound, busiest };
}

export const round = (n: number, digits = 1) => Number(n.toFixed(digits));

export interface Fleet {
  /** The accounts' names as registered (`<label>-000` is the simulator's demo account). */
  names: string[];
  ids: string[];
  /** API key to UID, for the bound's per-UID budgets. */
  uidOfKey: Map<string, string>;
}

/**
 * The simulator's demo account and `count - 1` more with histories of their own (seeds derived
 * from the demo's), each registered under `<label>-NNN`.
 */
export async function registerFleet(
  runtime: Runtime,
  sim: { url: string; demo: Credentials },
  count: number,
  label: string,
): Promise<Fleet> {
  const credentials: Credentials[] = [sim.demo];
  for (let i = 1; i < count; i++) {
    credentials.push(
      await admin<Credentials>(sim.url, 'POST', 'accounts', { broker: true, uta: true, withData: true }),
    );
  }
  const fleet: Fleet = { names: [], ids: [], uidOfKey: new Map() };
  for (const [i, c] of credentials.entries()) {
    const name = `${label}-${String(i).padStart(3, '0')}`;
    const account = await runtime.accounts.add({
      name,
      baseUrl: sim.url,
      ...c,
      isBrokerParent: true,
      isUnifiedAccount: true,
    });
    fleet.names.push(name);
    fleet.ids.push(account.id);
    fleet.uidOfKey.set(c.apiKey, c.uid);
  }
  return fleet;
}

/**
 * `count` worker processes on the bench's database and queue prefix, returned once every one
 * takes ingest jobs. `extra` adds settings (e.g. a cron that does not fire during the bench).
 */
export async function startFleetWorkers(
  runtime: Runtime,
  settings: { databaseUrl: string; redisUrl: string; prefix: string; count: number; extra?: NodeJS.ProcessEnv },
): Promise<ChildProcess[]> {
  const env = {
    ...process.env,
    DATABASE_URL: settings.databaseUrl,
    REDIS_URL: settings.redisUrl,
    QUEUE_PREFIX: settings.prefix,
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    // Several workers on one machine: each takes a free port for its /metrics.
    METRICS_PORT: '0',
    ...settings.extra,
  };
  const workers = Array.from({ length: settings.count }, () => spawnWorker(env));
  const ingest = runtime.queues.get(QUEUE.ingest);
  while ((await ingest.getWorkersCount()) < settings.count) await new Promise((r) => setTimeout(r, 100));
  return workers;
}
