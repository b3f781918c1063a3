import { spawn } from 'node:child_process';

import { CommanderError } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { parseCliOptions } from '../../src/simulator/cli-options.ts';
import { createContext } from '../../src/simulator/index.ts';

const argv = (...args: string[]) => ['node', 'main.ts', ...args];

afterEach(() => {
  vi.restoreAllMocks();
});

describe('simulator command line', () => {
  it('parses port, seed, scale and switches', () => {
    const options = parseCliOptions(
      argv(
        '--port',
        '8080',
        '--seed',
        '7',
        '--scale',
        '5000',
        '--no-rate-limits',
        '--timestamp-spelling',
        'camel',
        '--admin',
        '--request-log-size',
        '30000',
      ),
      false,
    );
    expect(options).toMatchObject({
      port: 8080,
      seed: 7,
      scale: { spotRecords: 5000 },
      rateLimits: { enabled: false, factor: 1 },
      timestampSpelling: 'camel',
      admin: true,
      requestLogSize: 30_000,
    });
    expect(parseCliOptions(argv(), false).requestLogSize).toBe(10_000);
    expect(parseCliOptions(argv(), false).admin).toBe(false);
    expect(parseCliOptions(argv(), true).admin).toBe(true);
    expect(parseCliOptions(argv('--demo'), false).admin).toBe(true);
  });

  it.each([
    [['--port', '70000'], /port must be an integer from 0 to 65535/],
    [['--seed', 'abc'], /seed must be an integer/],
    [['--scale', 'huge'], /scale must be tiny, demo, bench or a number/],
    [['--rate-limit-factor', '0'], /factor must be a positive number/],
    [['--timestamp-spelling', 'snake'], /Allowed choices are lower, camel/],
    [['--request-log-size', '0'], /request log size must be a positive integer/],
  ])('rejects %j with one clear line', (args, message) => {
    const lines: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((text) => {
      lines.push(String(text));
      return true;
    });
    expect(() => parseCliOptions(argv(...args), false)).toThrow(CommanderError);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.trim().split('\n')).toHaveLength(1);
    expect(lines[0]).toMatch(message);
  });

  it('the request log keeps as many requests as it is sized for', () => {
    const entry = { method: 'GET', path: '/x', query: '', status: 200, code: '00000', simTime: 0, key: null };
    const log = createContext({ scale: 'tiny', requestLogSize: 30_000 }).requestLog;
    for (let time = 0; time < 40_000; time++) log.add({ ...entry, time });
    expect(log.list()).toHaveLength(30_000);
    expect(log.list()[0]!.time).toBe(10_000);
  });

  it('the same seed prints the same demo credentials', () => {
    const a = createContext({ seed: 5, scale: 'tiny' });
    const b = createContext({ seed: 5, scale: 'tiny' });
    expect(b.demo.key.apiKey).toBe(a.demo.key.apiKey);
    expect(b.demo.key.secretKey).toBe(a.demo.key.secretKey);
    expect(b.demo.key.passphrase).toBe(a.demo.key.passphrase);
    expect(b.demo.account.uid).toBe(a.demo.account.uid);
  });

  it('`npm run simulator` prints its URL and the demo credentials', async () => {
    // Node itself (not npx) so that the SIGTERM below reaches the simulator and nothing is left running.
    const args = ['--import', 'tsx', 'src/simulator/main.ts', '--port', '0', '--scale', 'tiny', '--seed', '42'];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no credentials printed: ${out}`)), 20_000);
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (/passphrase\s+\S+/.test(out)) {
            clearTimeout(timer);
            resolve();
          }
        });
        child.on('exit', (code) => reject(new Error(`exited with ${String(code)}: ${out}`)));
      });
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    const expected = createContext({ seed: 42, scale: 'tiny' }).demo.key;
    expect(out).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
    expect(out).toContain(expected.apiKey);
    expect(out).toContain(expected.secretKey);
    expect(out).toContain(expected.passphrase);
  });
});
