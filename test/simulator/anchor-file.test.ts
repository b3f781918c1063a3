import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { CommanderError } from 'commander';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';

import { anchorFromFile } from '../../src/simulator/anchor-file.ts';
import { spawnSimulator } from '../../src/simulator/child-simulator.ts';
import { parseCliOptions } from '../../src/simulator/cli-options.ts';
import { createContext } from '../../src/simulator/index.ts';

/*
 * The compose file's demo profile runs the simulator as a service that restarts (a crash, a
 * reboot, `docker compose up` after an upgrade). A registered account must then find the same
 * account and the same history: the anchor kept in a file, the demo account from the seed with
 * its key bound to the worker's address.
 */
const DAY = 86_400_000;
const HOUR = 3_600_000;
const dir = mkdtempSync(path.join(tmpdir(), 'll-sim-anchor-'));
const argv = (...args: string[]) => ['node', 'main.ts', ...args];

afterEach(() => {
  vi.restoreAllMocks();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the simulator across restarts', () => {
  it('a first start writes the start of its UTC day to the anchor file; a start days later reads it back', () => {
    const file = path.join(dir, 'first-start');
    const day = Date.UTC(2026, 10, 26);
    expect(anchorFromFile(file, day + 5 * HOUR)).toBe(day);
    expect(readFileSync(file, 'utf8')).toBe(`${day}\n`);
    expect(anchorFromFile(file, day + 3 * DAY + 7 * HOUR)).toBe(day);
  });

  it('an anchor file that does not hold Unix milliseconds stops the start with one line naming the file', () => {
    const file = path.join(dir, 'garbled');
    writeFileSync(file, 'yesterday\n');
    expect(() => anchorFromFile(file, Date.now())).toThrow(
      new RangeError(
        `anchor file ${file}: holds "yesterday", not Unix milliseconds (delete it to start a new history)`,
      ),
    );
  });

  it('restarted on a later day with the same options, it serves the same demo account and the same history', async () => {
    const file = path.join(dir, 'restarted');
    const day = Date.UTC(2026, 10, 26);
    const start = (now: number) =>
      spawnSimulator(
        ['--port', '0', '--scale', 'tiny', '--admin', '--anchor-file', file, '--demo-ip', '172.29.57.10'].concat([
          '--now',
          String(now),
        ]),
      );
    const spotIds = async (url: string) => {
      const records = (await (await fetch(`${url}/__sim/truth/spot`)).json()) as { id: string; ts: string }[];
      return records.filter((r) => Number(r.ts) <= day + HOUR).map((r) => r.id);
    };
    const first = await start(day + HOUR);
    const before = { demo: first.demo, ids: await spotIds(first.url) };
    await first.stop();
    const second = await start(day + 3 * DAY + HOUR);
    try {
      expect(before.ids.length).toBeGreaterThan(100);
      expect(second.demo).toEqual(before.demo);
      expect(await spotIds(second.url)).toEqual(before.ids);
    } finally {
      await second.stop();
    }
    // Two simulator processes, each starting tsx: slow on a loaded 2-core machine.
  }, 120_000);

  it("--demo-ip binds the demo key to that address besides loopback; the credentials stay the seed's", () => {
    const plain = createContext({ seed: 42, scale: 'tiny' }).demo.key;
    const bound = createContext({ seed: 42, scale: 'tiny', demoIps: ['172.29.57.10'] }).demo.key;
    expect(bound.ipList).toEqual([...plain.ipList, '172.29.57.10']);
    expect([bound.apiKey, bound.secretKey, bound.passphrase]).toEqual([
      plain.apiKey,
      plain.secretKey,
      plain.passphrase,
    ]);
    const options = parseCliOptions(argv('--demo-ip', '172.29.57.10', '--demo-ip', 'fd00::10'), false);
    expect(options.demoIps).toEqual(['172.29.57.10', 'fd00::10']);
    expect(parseCliOptions(argv('--anchor-file', '/data/simulator/anchor'), false).anchorFile).toBe(
      '/data/simulator/anchor',
    );
  });

  it.each([
    [['--demo-ip', 'worker.example'], /demo-ip must be an IPv4 or IPv6 address/],
    [
      ['--anchor', 'today', '--anchor-file', '/tmp/anchor'],
      /'--anchor-file <path>' cannot be used with option '--anchor/,
    ],
  ])('rejects %j with one clear line', (args, message) => {
    const lines: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((text) => {
      lines.push(String(text));
      return true;
    });
    expect(() => parseCliOptions(argv(...args), false)).toThrow(CommanderError);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
  });
});
