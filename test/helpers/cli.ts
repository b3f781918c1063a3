import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import path from 'node:path';

import { compiledCliEntry } from './compiled-cli.ts';

/** The launcher users run (`bin/ledgerline.js`): it runs the sources through tsx. */
export const LAUNCHER = path.resolve(import.meta.dirname, '../../bin/ledgerline.js');

/** What the tests start: the same program compiled (see compiled-cli.ts for why). */
export const BIN = compiledCliEntry();

function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    // No random canary windows (src/streams/kit/page-fill.ts): tests count requests and pages exactly.
    PAGE_FILL_CANARY_EVERY: '0',
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    ...env,
  };
}

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `ledgerline <args>` to completion. */
export function runCli(args: string[], env: Record<string, string>, timeoutMs = 180_000): CliResult {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    env: childEnv(env),
    encoding: 'utf8',
    timeout: timeoutMs,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr.trim() };
}

/**
 * Runs `ledgerline <args>` to completion without blocking this process: for
 * commands that talk to a simulator this process serves.
 */
export async function runCliLive(args: string[], env: Record<string, string>, timeoutMs = 180_000): Promise<CliResult> {
  const child = spawnCli(args, env);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const status = await exited(child);
  clearTimeout(timer);
  return { status, stdout, stderr: stderr.trim() };
}

const spawned = new Set<ChildProcess>();

/** Starts `ledgerline <args>` in the background (a worker to kill, say). */
export function spawnCli(args: string[], env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, [BIN, ...args], { env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  spawned.add(child);
  child.once('exit', () => spawned.delete(child));
  return child;
}

/** Kills every process spawnCli started that is still running: call it in afterAll, so a failed test leaves none behind. */
export async function killSpawned(): Promise<void> {
  const running = [...spawned];
  for (const child of running) child.kill('SIGKILL');
  await Promise.all(running.map(exited));
}

/** Resolves when the process has exited. */
export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/**
 * Resolves once the process has written `text` on `stream`: stdout for what it prints for its
 * reader ("ledgerline web listening on"), stderr for its log lines (see `logged`).
 */
export function printed(
  child: ChildProcess,
  text: string,
  timeoutMs = 120_000,
  stream: 'stdout' | 'stderr' = 'stdout',
): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(
      () => reject(new Error(`did not write "${text}" on ${stream} within ${timeoutMs} ms`)),
      timeoutMs,
    );
    child[stream]?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(text)) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
}

/** Resolves once the process has logged `text` (logs go to stderr): a worker's "worker started", say. */
export function logged(child: ChildProcess, text: string, timeoutMs = 120_000): Promise<void> {
  return printed(child, text, timeoutMs, 'stderr');
}
