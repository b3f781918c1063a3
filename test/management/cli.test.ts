import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { QUEUE } from '../../jobs/definitions.ts';
import { killSpawned, runCli, runCliLive } from '../helpers/cli.ts';
import { type Pipeline, startPipeline } from '../helpers/pipeline.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { TEST_REDIS_URL } from '../helpers/test-redis.ts';

const db = useTestDatabase('mgmtcli');
let pipeline: Pipeline;
let env: Record<string, string>;
let dir: string;

beforeAll(async () => {
  pipeline = await startPipeline({ databaseUrl: db.url });
  env = {
    DATABASE_URL: db.url,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: `lltest-mgmtcli-${randomBytes(4).toString('hex')}`,
    EXCHANGE_RATE_FACTOR: '50',
  };
  dir = await mkdtemp(path.join(os.tmpdir(), 'll-mgmt-cli-'));
});
afterAll(async () => {
  await killSpawned();
  const keys = await pipeline.runtime.redis.keys(`${env.QUEUE_PREFIX}:*`);
  if (keys.length > 0) await pipeline.runtime.redis.del(...keys);
  await pipeline?.close();
  await rm(dir, { recursive: true, force: true });
});

async function file(name: string, text: string): Promise<string> {
  const full = path.join(dir, name);
  await writeFile(full, text);
  return full;
}

const cli = (args: string[], extra: Record<string, string> = {}) => runCli(args, { ...env, ...extra });

/** The CLI run without blocking this process, which serves the simulator it talks to. */
const cliLive = (args: string[], extra: Record<string, string> = {}) => runCliLive(args, { ...env, ...extra });

describe('management commands: bad input', () => {
  it('every bad input is one line naming the field and the rule, exit 2; nothing recorded, enqueued or sent', async () => {
    pipeline.sim.requestLog.clear();
    const both = await file('both.csv', 'symbol,orderId,clientOid\nBTCUSDT,1,c1\n');
    const cases: [string[], Record<string, string>, RegExp][] = [
      [
        ['subaccounts', 'create', '--username', 'Desk1'],
        {},
        /^RequestValidationError: createSub: username: must be 1 to 20 lowercase letters a-z \(got "Desk1"\)$/,
      ],
      [
        ['subaccounts', 'batch-create', '--names', 'Abcdefgh,Abcdefg', '--perms', 'read'],
        {},
        /^RequestValidationError: batchCreateSubaccountAndApiKey: items\[1\]\.subAccountName: must be exactly 8 English letters/,
      ],
      [
        ['subaccounts', 'batch-create', '--names', 'Abcdefgh', '--perms', 'read,transfer'],
        {},
        /^RequestValidationError: batchCreateSubaccountAndApiKey: items\[0\]\.permList\[1\]: must be one of spot_trade, margin_trade, contract_trade, read/,
      ],
      [
        ['subaccounts', 'batch-create', '--names', 'Abcdefgh,abcdefgh', '--perms', 'read'],
        {},
        /^ValidationError: items\[1\]\.subAccountName: repeats items\[0\] \(names ignore case\)$/,
      ],
      [
        ['apikeys', 'create', '--sub-uid', '123', '--label', 'x', '--perms', 'read,write'],
        {},
        /^RequestValidationError: createVirtualSubaccountApiKey: permList\[1\]: must be one of/,
      ],
      [
        ['apikeys', 'create', '--sub-uid', '123', '--label', 'x', '--perms', 'read'],
        { LEDGERLINE_SUBKEY_PASSPHRASE: 'onlyletters' },
        /^RequestValidationError: createVirtualSubaccountApiKey: passphrase: must be 8 to 32 characters, only English letters and digits, at least one letter and one digit \(got "\[redacted\]"\)$/,
      ],
      [
        ['apikeys', 'create', '--sub-uid', '123', '--label', 'x', '--perms', 'read'],
        {},
        /^ValidationError: passphrase: is required: set LEDGERLINE_SUBKEY_PASSPHRASE or run in a terminal to be prompted$/,
      ],
      [
        ['apikeys', 'modify', '--sub-uid', '1', '--api-key', 'k', '--label', 'x'],
        {},
        /^ValidationError: --ips: is required: the exchange empties the whitelist when it is not sent/,
      ],
      [
        ['orders', 'cancel-all', '--category', 'FUTURES'],
        {},
        /^RequestValidationError: cancelSymbolOrder: category: must be one of SPOT, MARGIN, USDT-FUTURES, COIN-FUTURES, USDC-FUTURES/,
      ],
      [
        ['orders', 'cancel', '--symbol', 'BTCUSDT', '--order-ids', path.join(dir, 'nope.txt')],
        {},
        /^ValidationError: --order-ids: cannot read the file: ENOENT/,
      ],
      [
        ['orders', 'cancel', '--orders', both],
        {},
        /^ValidationError: --orders line 2: must fill exactly one of orderId and clientOid/,
      ],
      [
        ['orders', 'cancel', '--symbol', 'BTCUSDT', '--order-ids', both, '--client-oids', both],
        {},
        /^ValidationError: --order-ids: give exactly one of --order-ids, --client-oids and --orders$/,
      ],
      [
        ['subaccounts', 'create', '--username', 'desk', '--account', 'nobody'],
        {},
        /^AccountNotFoundError: account "nobody" is not registered/,
      ],
    ];
    // A few at a time: each is a process of its own.
    for (let start = 0; start < cases.length; start += 4) {
      const batch = cases.slice(start, start + 4);
      const results = await Promise.all(
        batch.map(([args, extra]) =>
          cliLive(args.includes('--account') ? args : [...args, '--account', 'demo'], extra),
        ),
      );
      batch.forEach(([args, , message], k) => {
        const result = results[k]!;
        expect(result.stderr, args.join(' ')).toMatch(message);
        expect(result.stderr.split('\n'), args.join(' ')).toHaveLength(1);
        expect(result.status, args.join(' ')).toBe(2);
      });
    }
    expect(await db.prisma.managementAction.count()).toBe(0);
    const queue = new Queue(QUEUE.management, { prefix: env.QUEUE_PREFIX, connection: pipeline.runtime.redis });
    const counts = await queue.getJobCounts();
    await queue.close();
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(0);
    expect(pipeline.sim.requestLog.list()).toEqual([]);
  }, 120_000);
});

describe('management commands: --dry-run', () => {
  it('prints the exact requests of a batch cancel over several symbols and sends nothing', async () => {
    const rows = Array.from({ length: 120 }, (_, k) =>
      k % 3 === 0 ? `ETHUSDT,,c${k}` : `${k % 2 ? 'BTCUSDT' : 'SOLUSDT'},o${k},`,
    );
    const orders = await file('orders.csv', ['symbol,orderId,clientOid', ...rows].join('\n'));
    pipeline.sim.requestLog.clear();
    const result = cli(['orders', 'cancel', '--orders', orders, '--account', 'demo', '--dry-run']);
    expect(result.status).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toBe('dry run: 3 request(s) would be sent, in this order (passphrases shown as [redacted]):');
    const bodies = lines.slice(1).map((line) => {
      expect(line.startsWith('POST /api/v2/spot/trade/batch-cancel-order {')).toBe(true);
      return JSON.parse(line.slice(line.indexOf('{'))) as {
        symbol?: string;
        batchMode: string;
        orderList: { symbol?: string; orderId?: string; clientOid?: string }[];
      };
    });
    // 80 by orderId, grouped by symbol: 40 BTCUSDT + 10 SOLUSDT (multiple mode), then 30 SOLUSDT (single);
    // 40 by clientOid, all ETHUSDT (single).
    expect(bodies.map((b) => [b.batchMode, b.symbol, b.orderList.length])).toEqual([
      ['multiple', undefined, 50],
      ['single', 'SOLUSDT', 30],
      ['single', 'ETHUSDT', 40],
    ]);
    expect(bodies[2]!.orderList.every((item) => item.clientOid !== undefined && item.orderId === undefined)).toBe(true);
    expect(bodies[0]!.orderList.every((i) => i.orderId !== undefined && i.symbol !== undefined)).toBe(true);
    expect(new Set(bodies[0]!.orderList.map((i) => i.symbol))).toEqual(new Set(['BTCUSDT', 'SOLUSDT']));
    expect(bodies[1]!.orderList.every((i) => i.orderId !== undefined && i.symbol === undefined)).toBe(true);
    expect(pipeline.sim.requestLog.list()).toEqual([]);
    expect(await db.prisma.managementAction.count()).toBe(0);
  });

  it('shows a passphrase only as [redacted]', () => {
    const result = cli(
      ['apikeys', 'create', '--sub-uid', '123', '--label', 'x', '--perms', 'read', '--account', 'demo', '--dry-run'],
      { LEDGERLINE_SUBKEY_PASSPHRASE: 'Secret2026zz' },
    );
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(
      'POST /api/v2/user/create-virtual-subaccount-apikey {"subAccountUid":"123","passphrase":"[redacted]","label":"x","permList":["read"]}',
    );
    expect(result.stdout).not.toContain('Secret2026zz');
  });
});

describe('management commands: against the simulator', () => {
  it('creates a sub-account and a key, shows the secret once, lists the mirror, cancels orders', async () => {
    const created = await cliLive([
      'subaccounts',
      'create',
      '--username',
      'clidesk',
      '--account',
      'demo',
      '--with-worker',
    ]);
    expect(created.stderr, created.stdout).toBe('');
    expect(created.status).toBe(0);
    expect(created.stdout).toMatch(/action [0-9a-f-]{36}: succeeded/);
    const sub = pipeline.sim.state().subAccounts.find((s) => s.name === 'clidesk')!;
    expect(created.stdout).toContain(`"subUid":"${sub.uid}"`);

    const again = await cliLive([
      'subaccounts',
      'create',
      '--username',
      'clidesk',
      '--account',
      'demo',
      '--with-worker',
    ]);
    expect(again.status).toBe(0);
    expect(again.stdout).toMatch(/this command was recorded before as action/);
    expect(pipeline.sim.state().subAccounts.filter((s) => s.name === 'clidesk')).toHaveLength(1);

    const passphrase = { LEDGERLINE_SUBKEY_PASSPHRASE: 'Cli2026pass' };
    const key = await cliLive(
      [
        'apikeys',
        'create',
        '--sub-uid',
        sub.uid,
        '--label',
        'cli',
        '--perms',
        'read,spot_trade',
        '--ips',
        '127.0.0.1',
        '--account',
        'demo',
        '--with-worker',
      ],
      passphrase,
    );
    expect(key.status).toBe(0);
    const apiKey = pipeline.sim.state().subAccounts.find((s) => s.uid === sub.uid)!.apiKeys[0]!.apiKey;
    expect(key.stdout).toContain(`show it once with: ledgerline apikeys show-secret ${apiKey} --account demo`);
    const secret = pipeline.sim.context.accounts.key(apiKey)!.secretKey;
    expect(key.stdout).not.toContain(secret);

    const listed = cli(['apikeys', 'list', '--account', 'demo']);
    expect(listed.stdout).toContain(apiKey);
    expect(listed.stdout).toContain('stored, not yet shown');
    const shown = cli(['apikeys', 'show-secret', apiKey, '--account', 'demo']);
    expect(shown.status).toBe(0);
    expect(shown.stdout).toBe(`${secret}\n`);
    const twice = cli(['apikeys', 'show-secret', apiKey, '--account', 'demo']);
    expect(twice.status).toBe(2);
    expect(twice.stderr).toMatch(
      /^SecretUnavailableError: the secret of \S+ was already shown at \S+ and is no longer stored$/,
    );

    const modified = await cliLive(
      [
        'apikeys',
        'modify',
        '--sub-uid',
        sub.uid,
        '--api-key',
        apiKey,
        '--label',
        'cli2',
        '--perms',
        'none',
        '--ips',
        'none',
        '--account',
        'demo',
        '--with-worker',
      ],
      passphrase,
    );
    expect(modified.status).toBe(0);
    expect(pipeline.sim.state().subAccounts.find((s) => s.uid === sub.uid)!.apiKeys[0]).toMatchObject({
      label: 'cli2',
      permList: [],
      ipList: [],
    });

    const subs = cli(['subaccounts', 'list', '--account', 'demo']);
    expect(subs.stdout).toContain('clidesk');
    expect(subs.stdout).toContain(sub.uid);

    pipeline.sim.placeOrders([
      { category: 'SPOT', symbol: 'BTCUSDT', orderId: 'cli-1' },
      { category: 'SPOT', symbol: 'BTCUSDT', orderId: 'cli-2' },
    ]);
    const ids = await file('ids.txt', 'cli-1\n# a comment\ncli-2\ncli-404\n');
    const cancelled = await cliLive([
      'orders',
      'cancel',
      '--symbol',
      'BTCUSDT',
      '--order-ids',
      ids,
      '--account',
      'demo',
      '--with-worker',
    ]);
    // One order did not exist: the outcome is printed per order and the exit code (1: work failed) says not all were cancelled.
    expect(cancelled.stdout).toMatch(/order BTCUSDT orderId cli-404: failed 43001 The order does not exist/);
    expect(cancelled.stderr).toMatch(
      /^ActionFailedError: action \S+ ended partial: 1 order\(s\) not cancelled \(each order's outcome is listed\)$/,
    );
    expect(cancelled.status).toBe(1);
    expect(pipeline.sim.state().openOrders.filter((o) => o.orderId.startsWith('cli-'))).toEqual([]);

    const all = await cliLive(['orders', 'cancel-all', '--category', 'MARGIN', '--account', 'demo', '--with-worker']);
    expect(all.status).toBe(0);
    expect(pipeline.sim.state().openOrders.filter((o) => o.category === 'MARGIN')).toEqual([]);
  }, 120_000);
});
