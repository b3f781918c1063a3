import { execFileSync, spawn } from 'node:child_process';
import { existsSync, lstatSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { listExports } from '../../src/export/export-files.ts';
import { streamDefinition, STREAMS, WALLET_LEDGERS } from '../../src/streams/registry.ts';
import { BIN } from '../helpers/cli.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { insertWindows } from '../http/coverage-seed.ts';
import { insertAccount, insertCoverage, insertFuturesLedger, insertSpot } from './seed.ts';

const db = useTestDatabase('exportcli');
let dir: string;
let accountId: string;

function run(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        PAGE_FILL_CANARY_EVERY: '0',
        // Not development: a demo's settings file in the working directory must not leak into these runs.
        NODE_ENV: 'test',
        DATABASE_URL: db.url,
        EXPORT_DIR: path.join(dir, 'exports'),
        LOG_LEVEL: 'silent',
        ...env,
      },
      // A command that hangs is killed rather than left spinning after the test gives up.
      timeout: 120_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr: stderr.trim() }));
  });
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'll-export-cli-'));
  accountId = await insertAccount(db.url, 'acme');
  await insertSpot(db.url, accountId, [
    { recordId: 'c1', coin: 'BTC', spotTaxType: 'Deposit', amount: '2.000', ts: '2026-12-31T23:30:00Z' },
    { recordId: 'c2', coin: 'BTC', spotTaxType: 'Mystery', amount: '-0.5', ts: '2027-01-02T10:00:00Z' },
  ]);
  await insertCoverage(db.url, accountId, '2026-12-01T00:00:00Z', '2027-02-01T00:00:00Z');
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('ledgerline export', () => {
  it('writes the CSV and its manifest, and reports unmapped values on stderr', async () => {
    const out = path.join(dir, 'out', 'january.csv');
    const result = await run([
      'export',
      '--report',
      'spot-ledger',
      '--account',
      'acme',
      '--from',
      '2027-01-01',
      '--to',
      '2027-01-31',
      '--tz',
      'Europe/Berlin',
      '--out',
      out,
    ]);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('wrote spot-ledger of acme, 2027-01-01 to 2027-01-31 (Europe/Berlin): 2 rows');
    expect(result.stdout).toContain(`csv       ${out}`);
    expect(result.stderr).toBe(
      'warning: 1 rows carry values the mapping does not know (exported, category unmapped):\n  spotTaxType=Mystery  1',
    );
    const csv = await readFile(out, 'utf8');
    expect(
      csv
        .split('\n')
        .slice(1, 3)
        .map((l) => l.split(',')[0]),
    ).toEqual(['spot:c1', 'spot:c2']);
    const manifest = JSON.parse(await readFile(path.join(dir, 'out', 'january.manifest.json'), 'utf8'));
    expect(manifest).toMatchObject({ report: 'spot-ledger', rowCount: 2, parameters: { tz: 'Europe/Berlin' } });
  });

  it('writes into EXPORT_DIR by default', async () => {
    const result = await run([
      'export',
      '--report',
      'koinly',
      '--account',
      'acme',
      '--from',
      '2027-01-01',
      '--to',
      '2027-01-31',
    ]);
    expect(result.status).toBe(0);
    expect(await readdir(path.join(dir, 'exports', accountId))).toEqual([
      'koinly_2027-01-01_2027-01-31_UTC.csv',
      'koinly_2027-01-01_2027-01-31_UTC.manifest.json',
    ]);
  });

  it('--json prints one object naming the files, rows and checksum on stdout', async () => {
    const out = path.join(dir, 'json', 'koinly.csv');
    const result = await run([
      'export',
      '--report',
      'koinly',
      '--account',
      'acme',
      '--from',
      '2027-01-01',
      '--to',
      '2027-01-31',
      '--out',
      out,
      '--json',
    ]);
    expect(result.status).toBe(0);
    const printed = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(printed).toMatchObject({
      report: 'koinly',
      account: 'acme',
      period: { from: '2027-01-01', to: '2027-01-31', tz: 'UTC' },
      csv: out,
      partial: false,
    });
    expect(printed.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(typeof printed.rows).toBe('number');
  });

  it('says on its last line how many trade legs could not be paired, and where they are listed', async () => {
    const lonely = await insertAccount(db.url, 'lonely');
    await insertSpot(db.url, lonely, [
      { recordId: 'u1', coin: 'BTC', spotTaxType: 'Buy', amount: '0.1', bizOrderId: 'o9', ts: '2027-01-05T10:00:00Z' },
      { recordId: 'u2', coin: 'ETH', spotTaxType: 'Sell', amount: '-1', ts: '2027-01-06T10:00:00Z' },
    ]);
    await insertCoverage(db.url, lonely, '2027-01-01T00:00:00Z', '2027-02-01T00:00:00Z');
    const out = path.join(dir, 'out', 'lonely.csv');
    const args = ['--report', 'koinly', '--account', 'lonely', '--from', '2027-01-01', '--to', '2027-01-31'];
    const result = await run(['export', ...args, '--out', out]);
    expect(result.status).toBe(0);
    const unpaired = path.join(dir, 'out', 'lonely.unpaired.csv');
    expect(result.stderr.split('\n').at(-1)).toBe(
      `warning: 2 trade legs could not be paired with their other side; exported as single rows and listed in ${unpaired}`,
    );
    expect((await readFile(unpaired, 'utf8')).trimEnd().split('\n')).toHaveLength(3);
  });

  it('refuses a period that is not fully synced with one line naming the gap (exit 1); --allow-partial writes a marked file', async () => {
    const args = ['--report', 'koinly', '--account', 'acme', '--from', '2026-01-01', '--to', '2026-12-31'];
    const refused = await run(['export', ...args]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toBe(
      'CoverageGapError: the period is not fully synced: spot has no synced data from 2026-01-01T00:00:00.000Z to 2026-12-01T00:00:00.000Z (and 3 more gaps); sync it first, or export with --allow-partial',
    );
    expect(existsSync(path.join(dir, 'exports', accountId, 'koinly_2026-01-01_2026-12-31_UTC.csv'))).toBe(false);

    const partial = await run(['export', ...args, '--allow-partial']);
    expect(partial.status).toBe(0);
    const csv = path.join(dir, 'exports', accountId, 'koinly_2026-01-01_2026-12-31_UTC_PARTIAL.csv');
    expect(partial.stdout).toContain(`csv       ${csv}`);
    expect(partial.stderr).toMatch(/^warning: partial export \(--allow-partial\): spot has no synced data from/);
    const manifest = JSON.parse(await readFile(csv.replace(/\.csv$/, '.manifest.json'), 'utf8'));
    expect(manifest.partial).toBe(true);
    expect(manifest.coverage.complete).toBe(false);
    expect(manifest.coverage.streams[0]).toEqual({
      stream: 'spot',
      scope: '',
      covered: [{ start: '2026-12-01T00:00:00.000Z', end: '2027-01-01T00:00:00.000Z' }],
      gaps: [{ start: '2026-01-01T00:00:00.000Z', end: '2026-12-01T00:00:00.000Z' }],
      asOf: '2027-02-01T00:00:00.000Z',
    });
    expect(manifest.coverage.streams.map((s: { stream: string; scope: string }) => `${s.stream} ${s.scope}`)).toEqual([
      'spot ',
      'futures-ledger USDT-FUTURES',
      'futures-ledger COIN-FUTURES',
      'futures-ledger USDC-FUTURES',
    ]);
  });

  it('refuses realized gains when the history before the period has a gap (lots would be lost); the ledger is whole', async () => {
    const holey = await insertAccount(db.url, 'holey');
    // Synced from October, November failed, December on done: December itself is covered.
    await insertWindows(db.url, holey, [
      { stream: 'spot', start: '2026-10-01T00:00:00Z', end: '2026-11-01T00:00:00Z', status: 'done' },
      { stream: 'spot', start: '2026-11-01T00:00:00Z', end: '2026-12-01T00:00:00Z', status: 'failed' },
      { stream: 'spot', start: '2026-12-01T00:00:00Z', end: '2027-01-01T00:00:00Z', status: 'done' },
    ]);
    // The other wallets the gains walk reads are whole from October: only spot's November is missing.
    const others = STREAMS.filter((s) => s !== 'spot');
    await insertCoverage(db.url, holey, '2026-10-01T00:00:00Z', '2027-01-01T00:00:00Z', others);
    const args = ['--account', 'holey', '--from', '2026-12-01', '--to', '2026-12-31'];
    const ledger = await run(['export', '--report', 'spot-ledger', ...args]);
    expect(ledger.status).toBe(0);
    const gains = await run(['export', '--report', 'realized-gains', ...args]);
    expect(gains.status).toBe(1);
    expect(gains.stderr).toMatch(/spot has no synced data from 2026-11-01T00:00:00.000Z to 2026-12-01T00:00:00.000Z;/);
    const partial = await run(['export', '--report', 'realized-gains', ...args, '--allow-partial', '--json']);
    expect(partial.status).toBe(0);
    expect(JSON.parse(partial.stdout)).toMatchObject({ partial: true });
  });

  it('refuses uk realized gains when the futures ledger has a gap the spot ledger has not: the walk reads every wallet', async () => {
    const futuresGap = await insertAccount(db.url, 'futures-gap');
    // Spot and every other stream synced October to December; the USDT-M futures ledger's November failed.
    await insertCoverage(
      db.url,
      futuresGap,
      '2026-10-01T00:00:00Z',
      '2027-01-01T00:00:00Z',
      STREAMS.filter((s) => s !== 'futures-ledger'),
    );
    await insertWindows(
      db.url,
      futuresGap,
      streamDefinition('futures-ledger').scopes.flatMap((scope) => [
        {
          stream: 'futures-ledger' as const,
          scope,
          start: '2026-10-01T00:00:00Z',
          end: '2026-11-01T00:00:00Z',
          status: 'done' as const,
        },
        {
          stream: 'futures-ledger' as const,
          scope,
          start: '2026-11-01T00:00:00Z',
          end: '2026-12-01T00:00:00Z',
          status: scope === 'USDT-FUTURES' ? ('failed' as const) : ('done' as const),
        },
        {
          stream: 'futures-ledger' as const,
          scope,
          start: '2026-12-01T00:00:00Z',
          end: '2027-01-01T00:00:00Z',
          status: 'done' as const,
        },
      ]),
    );
    const args = ['--account', 'futures-gap', '--from', '2026-12-01', '--to', '2026-12-31'];
    // The spot ledger reads spot only: December is whole for it.
    expect((await run(['export', '--report', 'spot-ledger', ...args])).status).toBe(0);
    const gains = await run(['export', '--report', 'realized-gains', '--method', 'uk', ...args]);
    expect(gains.status).toBe(1);
    expect(gains.stderr).toMatch(
      /^CoverageGapError: the period is not fully synced: futures-ledger USDT-FUTURES has no synced data from 2026-11-01T00:00:00.000Z to 2026-12-01T00:00:00.000Z;/,
    );
    // Nothing written for the refused export (the spot ledger's file is the only one).
    expect(
      (await readdir(path.join(dir, 'exports', futuresGap))).filter((f) => f.startsWith('realized-gains')),
    ).toEqual([]);
    const partial = await run([
      'export',
      '--report',
      'realized-gains',
      '--method',
      'uk',
      ...args,
      '--allow-partial',
      '--json',
    ]);
    expect(partial.status).toBe(0);
    const printed = JSON.parse(partial.stdout) as { partial: boolean; csv: string; manifest: string };
    expect(printed.partial).toBe(true);
    expect(printed.csv).toMatch(/_PARTIAL\.csv$/);
    const manifest = JSON.parse(await readFile(printed.manifest, 'utf8'));
    expect(manifest.partial).toBe(true);
    const streams = manifest.coverage.streams as { stream: string; scope: string; gaps: unknown[] }[];
    // The uk variant's streams: spot, the futures ledger and every wallet ledger of the registry (not
    // closed positions: the ledger's windows cover the whole history, so the walk never needs them).
    expect([...new Set(streams.map((s) => s.stream))]).toEqual(['spot', 'futures-ledger', ...WALLET_LEDGERS]);
    expect(streams.filter((s) => s.gaps.length > 0).map((s) => `${s.stream} ${s.scope}`)).toEqual([
      'futures-ledger USDT-FUTURES',
    ]);
  });

  it('marks uk realized gains partial when the margin ledger was never read for the period, naming it', async () => {
    const noMargin = await insertAccount(db.url, 'no-margin');
    await insertCoverage(
      db.url,
      noMargin,
      '2026-12-01T00:00:00Z',
      '2027-01-01T00:00:00Z',
      STREAMS.filter((s) => s !== 'margin-ledger'),
    );
    const args = ['--account', 'no-margin', '--from', '2026-12-01', '--to', '2026-12-31'];
    const refused = await run(['export', '--report', 'realized-gains-summary', '--method', 'uk', ...args]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(
      /margin-ledger crossed has no synced data from 2026-12-01T00:00:00.000Z to 2027-01-01T00:00:00.000Z/,
    );
    const partial = await run(['export', '--report', 'realized-gains', '--method', 'uk', ...args, '--allow-partial']);
    expect(partial.status).toBe(0);
    expect(partial.stderr).toMatch(
      /^warning: partial export \(--allow-partial\): margin-ledger crossed has no synced data from 2026-12-01T00:00:00.000Z to 2027-01-01T00:00:00.000Z \(and 1 more gaps\)/,
    );
    expect(partial.stdout).toContain('_PARTIAL.csv');
  });

  it('checks each wallet from its own first window: a ledger whose history starts later is no gap before it', async () => {
    const lateMargin = await insertAccount(db.url, 'late-margin');
    // Spot and the rest from October; the margin ledger's first window is November's (its own grid).
    const others = STREAMS.filter((s) => s !== 'margin-ledger');
    await insertCoverage(db.url, lateMargin, '2026-10-01T00:00:00Z', '2027-01-01T00:00:00Z', others);
    await insertCoverage(db.url, lateMargin, '2026-11-01T00:00:00Z', '2027-01-01T00:00:00Z', ['margin-ledger']);
    const args = ['--account', 'late-margin', '--from', '2026-12-01', '--to', '2026-12-31', '--json'];
    const gains = await run(['export', '--report', 'realized-gains', '--method', 'uk', ...args]);
    expect(gains.status).toBe(0);
    const printed = JSON.parse(gains.stdout) as { partial: boolean; manifest: string };
    expect(printed.partial).toBe(false);
    const manifest = JSON.parse(await readFile(printed.manifest, 'utf8'));
    const margin = (manifest.coverage.streams as { stream: string; covered: { start: string }[] }[]).find(
      (s) => s.stream === 'margin-ledger',
    );
    expect(margin?.covered[0]?.start).toBe('2026-11-01T00:00:00.000Z');
  });

  it('checks each scope from its own first window: a product type whose first window the horizon narrowed later is no gap', async () => {
    // The demo met this: the futures ledger's 1-year horizon slides while its product types are read
    // one after another, so USDC-FUTURES' first window started 12 s after the others'.
    const narrowed = await insertAccount(db.url, 'narrowed-scope');
    const others = STREAMS.filter((s) => s !== 'futures-ledger');
    await insertCoverage(db.url, narrowed, '2026-10-01T00:00:00Z', '2027-01-01T00:00:00Z', others);
    const ledger = ['futures-ledger'] as const;
    await insertCoverage(db.url, narrowed, '2026-10-01T00:00:00Z', '2027-01-01T00:00:00Z', ledger, [
      'USDT-FUTURES',
      'COIN-FUTURES',
    ]);
    await insertCoverage(db.url, narrowed, '2026-10-01T00:00:12Z', '2027-01-01T00:00:00Z', ledger, ['USDC-FUTURES']);
    const args = ['--account', 'narrowed-scope', '--from', '2026-12-01', '--to', '2026-12-31', '--json'];
    const whole = await run(['export', '--report', 'realized-gains', '--method', 'uk', ...args]);
    expect(whole.status).toBe(0);
    expect((JSON.parse(whole.stdout) as { partial: boolean }).partial).toBe(false);
    // A hole inside that scope's own history is still a gap, named by its scope.
    const holed = await insertAccount(db.url, 'holed-scope');
    await insertCoverage(db.url, holed, '2026-10-01T00:00:00Z', '2027-01-01T00:00:00Z', others);
    await insertCoverage(db.url, holed, '2026-10-01T00:00:00Z', '2027-01-01T00:00:00Z', ledger, [
      'USDT-FUTURES',
      'COIN-FUTURES',
    ]);
    await insertCoverage(db.url, holed, '2026-10-01T00:00:12Z', '2026-10-15T00:00:00Z', ledger, ['USDC-FUTURES']);
    await insertCoverage(db.url, holed, '2026-11-01T00:00:00Z', '2027-01-01T00:00:00Z', ledger, ['USDC-FUTURES']);
    const refused = await run([
      'export',
      '--report',
      'realized-gains',
      '--method',
      'uk',
      '--account',
      'holed-scope',
      '--from',
      '2026-12-01',
      '--to',
      '2026-12-31',
    ]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(
      'futures-ledger USDC-FUTURES has no synced data from 2026-10-15T00:00:00.000Z to 2026-11-01T00:00:00.000Z',
    );
  });

  /** A futures-ledger record (a small funding payment) at `iso`: the ledger's first record. */
  const ledgerFee = (iso: string) => ({
    recordId: '1',
    marginCoin: 'USDT',
    futureTaxType: 'contract_settle_fee',
    amount: '-0.1',
    ts: Date.parse(iso),
  });

  it('checks closed positions only where the walk reads them: before the futures ledger vouches for the results', async () => {
    // Everything else from September; the futures ledger read from November (its first record the 5th):
    // before November the walk takes futures results from closed positions, so a positions gap in
    // October refuses the export, and one in December (the ledger's results count there) does not.
    const others = STREAMS.filter((s) => s !== 'positions' && s !== 'futures-ledger');
    const seed = async (name: string, positions: [string, string][], ledgerFrom: string) => {
      const id = await insertAccount(db.url, name);
      await insertCoverage(db.url, id, '2026-09-01T00:00:00Z', '2027-01-01T00:00:00Z', others);
      await insertCoverage(db.url, id, ledgerFrom, '2027-01-01T00:00:00Z', ['futures-ledger']);
      for (const [from, to] of positions) await insertCoverage(db.url, id, from, to, ['positions']);
      await insertFuturesLedger(db.url, id, [ledgerFee('2026-11-05T00:00:00Z')]);
    };
    await seed(
      'positions-early-gap',
      [
        ['2026-09-01T00:00:00Z', '2026-10-01T00:00:00Z'],
        ['2026-10-20T00:00:00Z', '2027-01-01T00:00:00Z'],
      ],
      '2026-11-01T00:00:00Z',
    );
    await seed('positions-late-gap', [['2026-09-01T00:00:00Z', '2026-11-01T00:00:00Z']], '2026-11-01T00:00:00Z');
    // The ledger read from September, its first record in November: it says there were no futures
    // results before, so the positions stream's October does not matter.
    await seed('ledger-vouches', [['2026-09-01T00:00:00Z', '2026-10-01T00:00:00Z']], '2026-09-01T00:00:00Z');
    const period = ['--from', '2026-12-01', '--to', '2026-12-31'];
    const gains = (account: string) => run(['export', '--report', 'realized-gains', '--account', account, ...period]);
    const refused = await gains('positions-early-gap');
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(
      /positions (USDT|COIN|USDC)-FUTURES has no synced data from 2026-10-01T00:00:00.000Z to 2026-10-20T00:00:00.000Z/,
    );
    expect((await gains('positions-late-gap')).status).toBe(0);
    expect((await gains('ledger-vouches')).status).toBe(0);
    // A report that never reads positions is not refused for them.
    const ledger = await run(['export', '--report', 'futures-ledger', '--account', 'positions-early-gap', ...period]);
    expect(ledger.status).toBe(0);
  });

  it('refuses an account never synced, writing nothing', async () => {
    const never = await insertAccount(db.url, 'never-synced');
    const refused = await run([
      'export',
      '--report',
      'spot-ledger',
      '--account',
      'never-synced',
      '--from',
      '2025-01-01',
      '--to',
      '2025-12-31',
    ]);
    expect(refused.status).toBe(1);
    expect(refused.stderr.split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(
      /spot has no synced data from 2025-01-01T00:00:00.000Z to 2026-01-01T00:00:00.000Z;/,
    );
    expect(existsSync(path.join(dir, 'exports', never))).toBe(false);
  });

  it('refuses bad input with one line naming the field, and writes nothing', async () => {
    const out = path.join(dir, 'never.csv');
    const base = [
      'export',
      '--report',
      'spot-ledger',
      '--account',
      'acme',
      '--from',
      '2027-01-01',
      '--to',
      '2027-01-31',
      '--out',
      out,
    ];
    const with_ = (flag: string, value: string) => base.map((v, i) => (base[i - 1] === flag ? value : v));
    const cases: Array<[string[], RegExp]> = [
      [with_('--report', 'balance-sheet'), /^ValidationError: report: must be one of spot-ledger, /],
      [with_('--account', 'nobody'), /^ValidationError: account: no account with this name \(got "nobody"\)$/],
      [with_('--from', '2027-02-30'), /^ValidationError: from: is not a calendar date/],
      [with_('--to', '2026-12-31'), /^ValidationError: to: must not be before from \(2027-01-01\)/],
      [[...base, '--tz', 'Mars/Base'], /^ValidationError: tz: must be an IANA time zone name/],
    ];
    // Independent processes: run side by side to keep the suite quick.
    const results = await Promise.all(cases.map(([args]) => run(args)));
    for (const [i, [args, message]] of cases.entries()) {
      const result = results[i]!;
      expect(result.status, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr.split('\n')).toHaveLength(1);
      expect(result.stdout).toBe('');
    }
    expect(existsSync(out)).toBe(false);
  });

  it('prints an error line with control characters escaped, whatever its message quotes', async () => {
    const result = await run([
      ...['export', '--report', 'koinly', '--from', '2027-01-01', '--to', '2027-01-31'],
      ...['--account', 'x\u009b2J\u202eevil'],
    ]);
    expect(result.status).toBe(2);
    expect(result.stderr).toBe('ValidationError: account: no account with this name (got "x\\x9b2J\\u202eevil")');
  });

  it('does not start the web page without a token, or with a short one', async () => {
    const missing = await run(['web']);
    expect([missing.status, missing.stderr]).toEqual([
      2,
      'ConfigError: LEDGERLINE_WEB_TOKEN: is required to start the web page (openssl rand -hex 32)',
    ]);
    const short = await run(['web'], { LEDGERLINE_WEB_TOKEN: 'short' });
    expect(short.status).toBe(2);
    expect(short.stderr).toMatch(/^ConfigError: LEDGERLINE_WEB_TOKEN: must be at least 32 characters/);
  });

  it('a file that cannot be written is one line naming the path and the cause (exit 1), and nothing is left', async () => {
    const scratch = path.join(dir, 'unwritable');
    await mkdir(scratch, { recursive: true });
    const aFile = path.join(scratch, 'a-file');
    await writeFile(aFile, 'not a directory\n');
    // The default file name already taken by a directory: the rename into place fails.
    const taken = await insertAccount(db.url, 'taken');
    await insertCoverage(db.url, taken, '2027-01-01T00:00:00Z', '2027-02-01T00:00:00Z');
    const takenDir = path.join(dir, 'exports', taken);
    await mkdir(path.join(takenDir, 'koinly_2027-01-01_2027-01-31_UTC.csv'), { recursive: true });
    const args = ['export', '--report', 'koinly', '--from', '2027-01-01', '--to', '2027-01-31'];
    const cases: Array<[string[], RegExp]> = [
      [
        [...args, '--account', 'acme', '--out', '/proc/x.csv'],
        /^ExportFileError: cannot write \/proc\/x\.csv: no such file or directory \(ENOENT\)$/,
      ],
      [
        [...args, '--account', 'acme', '--out', '/proc/no-such-dir/x.csv'],
        /^ExportFileError: cannot create the directory \/proc\/no-such-dir: no such file or directory \(ENOENT\)$/,
      ],
      [
        [...args, '--account', 'acme', '--out', '/sys/x.csv'],
        /^ExportFileError: cannot write \/sys\/x\.csv: (permission denied \(EACCES\)|read-only file system \(EROFS\))$/,
      ],
      [
        [...args, '--account', 'acme', '--out', path.join(aFile, 'x.csv')],
        new RegExp(`^ExportFileError: cannot create the directory ${aFile}: not a directory \\(ENOTDIR\\)$`),
      ],
      [
        [...args, '--account', 'taken'],
        new RegExp(
          `^ExportFileError: cannot write ${takenDir}/koinly_2027-01-01_2027-01-31_UTC\\.csv: illegal operation on a directory \\(EISDIR\\)$`,
        ),
      ],
    ];
    const results = await Promise.all(cases.map(([a]) => run(a)));
    for (const [i, [a, message]] of cases.entries()) {
      const result = results[i]!;
      expect(result.stderr, a.join(' ')).toMatch(message);
      expect(result.stderr.split('\n')).toHaveLength(1);
      expect(result.status, a.join(' ')).toBe(1);
      expect(result.stdout).toBe('');
    }
    expect(await readdir(scratch)).toEqual(['a-file']);
    expect(await readdir(takenDir)).toEqual(['koinly_2027-01-01_2027-01-31_UTC.csv']);
    expect(existsSync('/proc_PARTIAL')).toBe(false);
  });

  it('never replaces what is not a regular file (a FIFO, a device) under the name it writes', async () => {
    const fifo = path.join(dir, 'a-fifo.csv');
    execFileSync('mkfifo', [fifo]);
    const args = ['--report', 'koinly', '--account', 'acme', '--from', '2027-01-01', '--to', '2027-01-31'];
    const result = await run(['export', ...args, '--out', fifo]);
    expect(result.stderr).toBe(`ExportFileError: cannot write ${fifo}: exists and is not a regular file (EEXIST)`);
    expect(result.status).toBe(1);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(existsSync(path.join(dir, 'a-fifo.manifest.json'))).toBe(false);
  });

  it('--out naming an existing directory writes into it under the default name, marked when partial', async () => {
    const into = path.join(dir, 'into');
    await mkdir(into, { recursive: true });
    const args = ['export', '--report', 'koinly', '--account', 'acme', '--out', into];
    const whole = await run([...args, '--from', '2027-01-01', '--to', '2027-01-31']);
    expect(whole.status).toBe(0);
    expect(whole.stdout).toContain(`csv       ${path.join(into, 'koinly_2027-01-01_2027-01-31_UTC.csv')}`);
    const partial = await run([...args, '--from', '2026-06-01', '--to', '2026-12-31', '--allow-partial']);
    expect(partial.status).toBe(0);
    expect(await readdir(into)).toEqual([
      'koinly_2026-06-01_2026-12-31_UTC_PARTIAL.csv',
      'koinly_2026-06-01_2026-12-31_UTC_PARTIAL.manifest.json',
      'koinly_2027-01-01_2027-01-31_UTC.csv',
      'koinly_2027-01-01_2027-01-31_UTC.manifest.json',
    ]);
    expect(existsSync(`${into}_PARTIAL`)).toBe(false);
  });

  it('removes temporary files a killed export left over a day ago, keeps fresh ones, and never lists them', async () => {
    const leftover = await insertAccount(db.url, 'leftover');
    await insertCoverage(db.url, leftover, '2027-01-01T00:00:00Z', '2027-02-01T00:00:00Z');
    const exports = path.join(dir, 'exports', leftover);
    await mkdir(exports, { recursive: true });
    const old = [
      'koinly_2026-01-01_2026-01-31_UTC.csv.partial-4242-0badf00d',
      'koinly_2026-01-01_2026-01-31_UTC.manifest.json.partial-4242-0badf00d',
      'koinly_2026-01-01_2026-01-31_UTC.unpaired.csv.partial-4242-0badf00d',
    ];
    const fresh = 'spot-ledger_2027-01-01_2027-01-31_UTC.csv.partial-77-cafe0123';
    const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000);
    for (const name of [...old, fresh, 'notes.txt']) await writeFile(path.join(exports, name), '{}\n');
    for (const name of [...old, 'notes.txt']) await utimes(path.join(exports, name), twoDaysAgo, twoDaysAgo);
    expect(await listExports(path.join(dir, 'exports'), leftover)).toEqual([]);

    const result = await run([
      ...['export', '--report', 'koinly', '--account', 'leftover'],
      '--from',
      '2027-01-01',
      '--to',
      '2027-01-31',
    ]);
    expect(result.status).toBe(0);
    expect((await readdir(exports)).sort()).toEqual([
      'koinly_2027-01-01_2027-01-31_UTC.csv',
      'koinly_2027-01-01_2027-01-31_UTC.manifest.json',
      'notes.txt',
      fresh,
    ]);
    expect((await listExports(path.join(dir, 'exports'), leftover)).map((l) => l.csvFile)).toEqual([
      'koinly_2027-01-01_2027-01-31_UTC.csv',
    ]);
  });

  it('prints exchange strings in its warnings with control characters escaped', async () => {
    const hostile = await insertAccount(db.url, 'hostile');
    await insertSpot(db.url, hostile, [
      {
        recordId: 'h1',
        coin: 'BTC',
        spotTaxType: 'Evil\t\u001b[2J\u009b31m\r\nfake: ok',
        amount: '1',
        ts: '2027-01-03T10:00:00Z',
      },
    ]);
    await insertCoverage(db.url, hostile, '2027-01-01T00:00:00Z', '2027-02-01T00:00:00Z');
    const args = ['--report', 'spot-ledger', '--account', 'hostile', '--from', '2027-01-01', '--to', '2027-01-31'];
    const result = await run(['export', ...args, '--out', path.join(dir, 'hostile', 'x.csv')]);
    expect(result.status).toBe(0);
    expect(result.stderr).toBe(
      'warning: 1 rows carry values the mapping does not know (exported, category unmapped):\n' +
        '  spotTaxType=Evil\\t\\x1b[2J\\x9b31m\\r\\nfake: ok  1',
    );
  });
});
