import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { beforeAll, describe, expect, it } from 'vitest';

import { EXIT } from '../../src/cli/exit-codes.ts';
import { insertAccount, withClient } from '../export/seed.ts';
import { runCliLive } from '../helpers/cli.ts';
import { useTestDatabase } from '../helpers/test-database.ts';

/**
 * `ledgerline proceeds import|list` (docs/cli.md; docs/reports.md, "Unknown proceeds"): the proceeds
 * of P2P sells, which no record states, supplied from the bank statement. A bad file is refused
 * on one line naming the row and the field (exit 2), nothing written; the same file twice adds nothing.
 */
const db = useTestDatabase('proceedscli');
const dir = mkdtempSync(path.join(tmpdir(), 'ledgerline-proceeds-'));
const env = () => ({ DATABASE_URL: db.url });

function file(name: string, text: string): string {
  const target = path.join(dir, name);
  writeFileSync(target, text);
  return target;
}

const stored = () =>
  withClient(db.url, async (c) =>
    Number((await c.query<{ n: string }>('SELECT count(*) AS n FROM supplied_proceeds')).rows[0]!.n),
  );

beforeAll(async () => {
  const account = await insertAccount(db.url, 'alice');
  await withClient(db.url, (c) =>
    c.query(
      `INSERT INTO p2p_ledger_record (account_id, record_id, coin, p2p_tax_type, total, ts, raw)
       VALUES ($1, 'p4', 'USDT', 'sell', 100, '2025-03-08T10:00:00Z', '{}')`,
      [account],
    ),
  );
});

describe('ledgerline proceeds', () => {
  it.each([
    [
      'a bad column',
      'record_id,amount,currency,source\np2p:p4,85,GBP,bank\n',
      /^header: unknown column; columns are record_id, proceeds, currency, source, note \(got "amount"\)$/,
    ],
    [
      'a non-decimal proceeds',
      'record_id,proceeds,currency,source\np2p:p4,"85,50",GBP,bank\n',
      /^line 2 proceeds: must be a plain decimal, 0 or more \(got "85,50"\)$/,
    ],
    [
      'an unknown record id',
      'record_id,proceeds,currency,source\np2p:p4,85,GBP,bank\np2p:nope,1,GBP,bank\n',
      /^line 3 record_id: must name a P2P sell of the account \(got "p2p:nope"\)$/,
    ],
    [
      'a currency that is no code',
      'record_id,proceeds,currency,source\np2p:p4,85,G B P,bank\n',
      /^line 2 currency: must be a coin or currency code/,
    ],
  ])('refuses %s on one line naming the row and field, exit 2, nothing written', async (_, text, message) => {
    const refused = await runCliLive(['proceeds', 'import', '--file', file('bad.csv', text)], env());
    expect(refused.status).toBe(EXIT.badInput);
    const lines = refused.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]!.replace(/^[^:]*Error: /, '')).toMatch(message);
    expect(await stored()).toBe(0);
  });

  it('imports idempotently and lists each import with its source', async () => {
    const good = file(
      'sales.csv',
      'record_id,proceeds,currency,source,note\np2p:p4,85,GBP,bank-statement,\np2p:p4,95.5,EUR,bank-statement,\n',
    );
    const first = await runCliLive(['proceeds', 'import', '--file', good], env());
    expect(first.stderr).toBe('');
    expect(first.stdout.split('\n')[0]).toMatch(/^2 rows: 2 sales priced \(import \d+\)$/);
    const again = await runCliLive(['proceeds', 'import', '--file', good, '--json'], env());
    const result = JSON.parse(again.stdout) as {
      inserted: number;
      alreadyImported: boolean;
      imports: { fileName: string; sources: string; sales: number }[];
    };
    expect([result.inserted, result.alreadyImported]).toEqual([0, true]);
    expect(result.imports.map((i) => [i.fileName, i.sources, i.sales])).toEqual([['sales.csv', 'bank-statement', 2]]);
    expect(await stored()).toBe(2);
    const listed = await runCliLive(['proceeds', 'list'], env());
    expect(listed.stdout.trim()).toMatch(
      /^import \d+ sales\.csv: 2 sales in EUR,GBP from bank-statement, supplied by cli:\S+ at \S+Z$/,
    );
  });
});
