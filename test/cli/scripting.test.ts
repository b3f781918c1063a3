import { readFileSync } from 'node:fs';

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { SecretBox } from '../../src/crypto/secret-box.ts';
import { storePage } from '../../src/ingest/coverage/store-page.ts';
import { ensureWindows, failWindow } from '../../src/ingest/coverage/window-store.ts';
import { spotRecordTable } from '../../src/streams/spot/table.ts';
import { runCli } from '../helpers/cli.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { randomPrefix, TEST_REDIS_URL } from '../helpers/test-redis.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const db = useTestDatabase('scripting');
const env = () => ({
  DATABASE_URL: db.url,
  REDIS_URL: TEST_REDIS_URL,
  QUEUE_PREFIX: randomPrefix('scripting').replaceAll(':', '-'),
});
let pool: pg.Pool;

beforeAll(() => {
  pool = new pg.Pool({ connectionString: db.url });
});
afterAll(async () => {
  await pool.end();
});

async function account(name: string): Promise<string> {
  const box = new SecretBox(Buffer.alloc(32, 3));
  const data = {
    name,
    uid: '1',
    baseUrl: 'http://x',
    apiKey: 'k',
    secretEnc: box.seal('s'),
    passphraseEnc: box.seal('p'),
  };
  return (await db.prisma.account.create({ data })).id;
}

async function covered(accountId: string, start: number, end: number): Promise<void> {
  const [w] = await ensureWindows(pool, [{ accountId, stream: 'spot', scope: '', start, end }]);
  await storePage(pool, {
    windowId: w!.id,
    accountId,
    spec: spotRecordTable,
    records: [],
    fromCursor: null,
    nextCursor: null,
    last: true,
  });
}

interface StatusJson {
  ok: boolean;
  now: string;
  nightly: { next: string | null; workers: number };
  accounts: {
    name: string;
    disabled: boolean;
    lost: { stream: string; scope: string; start: string; end: string; readableFrom: string; reason: string }[];
    streams: { stream: string; gaps: { start: string; end: string }[]; failed: unknown[]; problemGaps: unknown[] }[];
  }[];
}

describe('scripting', () => {
  it('--version prints the package version alone and exits 0', () => {
    const result = runCli(['--version'], {});
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(result.stdout).toBe(`${version}\n`);
    expect(result.status).toBe(0);
  });

  it('a usage error prints one line and "see --help", not the whole help, and exits 2', () => {
    const result = runCli(['status', '--no-such-option'], {});
    expect(result.stderr.split('\n')).toEqual(["error: unknown option '--no-such-option'", 'see --help']);
    expect(result.stdout).toBe('');
    expect(result.status).toBe(2);
  });

  it.each([
    [['backfill', '--acount', 'main'], '--acount', '--account'],
    [['backfill', '--account', 'main', '--frm', '2026-01-01'], '--frm', '--from'],
    [['accounts', 'remove', 'main', '--yse'], '--yse', undefined],
  ])('a mistyped option is refused by its name before any required option is asked for: %j', (args, typed, meant) => {
    const result = runCli(args, {});
    const lines = result.stderr.split('\n');
    expect(lines[0]).toBe(`error: unknown option '${typed}'`);
    if (meant !== undefined) expect(lines).toContain(`(Did you mean ${meant}?)`);
    expect(result.stderr).not.toMatch(/required option/);
    expect(result.status).toBe(2);
  });

  it('status --json is one object on stdout; exit 0 while only the last hours are uncovered', async () => {
    const now = Date.now();
    const id = await account('fresh');
    await covered(id, now - 10 * DAY, now - 2 * HOUR);
    const result = runCli(['status', '--json', '--account', 'fresh'], env());
    expect(result.stderr).toBe('');
    const status = JSON.parse(result.stdout) as StatusJson;
    expect(status.ok).toBe(true);
    expect(status.nightly).toEqual({ next: null, workers: 0 });
    const [fresh] = status.accounts;
    expect(fresh).toMatchObject({ name: 'fresh', disabled: false });
    const spot = fresh!.streams.find((s) => s.stream === 'spot')!;
    // The tail since the last sync is shown as a gap, but is not a problem yet.
    expect(spot.gaps).toHaveLength(1);
    expect(spot.gaps[0]!.start).toBe(new Date(now - 2 * HOUR).toISOString());
    expect(spot.problemGaps).toEqual([]);
    expect(result.status).toBe(0);
  });

  it('status exits 1 when there is a gap or a failed window, in text and in --json', async () => {
    const now = Date.now();
    const gappy = await account('gappy');
    await covered(gappy, now - 10 * DAY, now - 6 * DAY);
    await covered(gappy, now - 5 * DAY, now - HOUR);
    const text = runCli(['status', '--account', 'gappy'], env());
    expect(text.stdout).toMatch(/not complete: 1 gap\(s\), 0 failed range\(s\) \(exit 1\)/);
    expect(text.status).toBe(1);

    const failing = await account('failing');
    await covered(failing, now - 10 * DAY, now - HOUR);
    const [w] = await ensureWindows(pool, [
      { accountId: failing, stream: 'positions', scope: 'USDT-FUTURES', start: now - 2 * DAY, end: now - DAY },
    ]);
    await failWindow(pool, w!.id, 'ExchangeAuthError: apikey/password is incorrect', true);
    const json = runCli(['status', '--json', '--account', 'failing'], env());
    const status = JSON.parse(json.stdout) as StatusJson;
    expect(status.ok).toBe(false);
    expect(status.accounts[0]!.streams.find((s) => s.stream === 'positions')!.failed).toHaveLength(1);
    expect(json.status).toBe(1);

    // Once the horizon passes it, the failed window is recorded lost: status names it for good.
    await pool.query(
      `INSERT INTO lost_window (window_id, account_id, stream, scope, window_start, window_end, readable_from, reason)
       SELECT id, account_id, stream, scope, window_start, window_end, now(), 'failed: apikey/password is incorrect'
         FROM sync_window WHERE id = $1`,
      [w!.id],
    );
    const lost = JSON.parse(runCli(['status', '--json', '--account', 'failing'], env()).stdout) as StatusJson;
    expect(lost.accounts[0]!.lost).toEqual([
      expect.objectContaining({
        stream: 'positions',
        scope: 'USDT-FUTURES',
        reason: 'failed: apikey/password is incorrect',
      }),
    ]);
    const lostText = runCli(['status', '--account', 'failing'], env());
    expect(lostText.stdout).toMatch(
      /LOST: positions USDT-FUTURES .* can no longer be read \(the exchange serves from /,
    );
    expect(lostText.stdout).toMatch(/1 window\(s\) lost past the horizon \(exit 1\)/);

    // Every account at once: one bad account is enough.
    expect(runCli(['status'], env()).status).toBe(1);
  });
});
