/**
 * What bench:fleet and bench:fleet-night share: the simulator's admin routes, `ledgerline worker`
 * processes started as an operator starts them, and the bound the exchange's budgets put on a set
 * of requests.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';

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
