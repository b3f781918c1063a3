import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';

import type { DemoCredentials } from './types.ts';

const MAIN = path.resolve(import.meta.dirname, 'main.ts');

export interface ChildSimulator {
  url: string;
  demo: DemoCredentials;
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Runs the simulator in a process of its own (so a benchmark or the demo
 * measures ledgerline, not a simulator sharing its event loop) and reads its
 * URL and demo credentials from what it prints at start-up.
 */
export function spawnSimulator(args: string[], env?: NodeJS.ProcessEnv): Promise<ChildSimulator> {
  // tsx by its resolved address: a bare `tsx` is looked up from the working directory, which need
  // not be this project's (a test running the demo in a directory of its own).
  const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), MAIN, ...args], {
    // Without an explicit environment the child inherits this process's.
    ...(env ? { env } : {}),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`simulator exited (${code}): ${errors.trim()}`));
    child.once('exit', onExit);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const field = (label: string) => new RegExp(`${label}\\s+(\\S+)`).exec(output)?.[1];
      const url = /listening on (\S+)/.exec(output)?.[1];
      const demo = {
        uid: field('uid'),
        apiKey: field('API key'),
        secretKey: field('secret key'),
        passphrase: field('passphrase'),
      };
      if (!url || !demo.uid || !demo.apiKey || !demo.secretKey || !demo.passphrase) return;
      child.off('exit', onExit);
      resolve({
        url,
        demo: demo as DemoCredentials,
        process: child,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}
