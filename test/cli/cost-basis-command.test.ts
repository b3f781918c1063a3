import { mkdtempSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { beforeAll, describe, expect, it } from 'vitest';

import { EXIT } from '../../src/cli/exit-codes.ts';
import { insertAccount, withClient } from '../export/seed.ts';
import { runCliLive } from '../helpers/cli.ts';
import { useTestDatabase } from '../helpers/test-database.ts';

/**
 * `ledgerline cost-basis import|list|withdraw` (docs/cli.md; docs/reports.md, "Unknown cost"): a
 * currency no walk can value in (a typo such as XYZ) is refused; every bad row is named on a line
 * of its own; a file past 16 MiB or holding a NUL byte is one typed line naming the rule, no stack
 * trace; nothing is written. A withdrawal is kept and listed with who, when and why.
 */
const db = useTestDatabase('costbasiscli');
const dir = mkdtempSync(path.join(tmpdir(), 'ledgerline-cost-basis-'));
const env = () => ({ DATABASE_URL: db.url });
const HEADER = 'coin,quantity,acquired_at,cost,currency,source,note';

function file(name: string, text: string): string {
  const target = path.join(dir, name);
  writeFileSync(target, text);
  return target;
}

const lots = () =>
  withClient(db.url, async (c) =>
    Number((await c.query<{ n: string }>('SELECT count(*) AS n FROM cost_basis_lot')).rows[0]!.n),
  );

beforeAll(async () => {
  await insertAccount(db.url, 'alice');
});

// Each command is a process of its own (a few seconds each on a loaded machine): room for four.
describe('ledgerline cost-basis', { timeout: 240_000 }, () => {
  it('refuses a typo currency (XYZ) naming the row and the rule, exit 2, nothing written', async () => {
    const refused = await runCliLive(
      ['cost-basis', 'import', '--file', file('xyz.csv', `${HEADER}\nETH,1,2024-01-10,1500,XYZ,bank,\n`)],
      env(),
    );
    expect(refused.status).toBe(EXIT.badInput);
    expect(refused.stderr.trim().split('\n')).toEqual([
      'SuppliedRowsError: line 2 currency: must be an ISO 4217 currency code such as GBP, EUR or USD, or USDT (the valuation currency) (got "XYZ")',
    ]);
    expect(await lots()).toBe(0);
  });

  it('prints one line per bad row, then the count, exit 2, nothing written', async () => {
    const text = `${HEADER}\nETH,1,2024-01-10,1500,GBP,bank,\nETH,-1,2024-01-10,1,GBP,bank,\nETH,1,2024-01-10,1,GPB,bank,\n`;
    const refused = await runCliLive(['cost-basis', 'import', '--file', file('rows.csv', text)], env());
    expect(refused.status).toBe(EXIT.badInput);
    const lines = refused.stderr.trim().split('\n');
    expect(lines.slice(0, 2)).toEqual([
      'line 3 quantity: must be a plain decimal above 0 (got "-1")',
      'line 4 currency: must be an ISO 4217 currency code such as GBP, EUR or USD, or USDT (the valuation currency) (got "GPB")',
    ]);
    expect(lines[2]).toMatch(/^SuppliedRowsError: file: 2 rows break the rules, nothing written: line 3 quantity/);
    expect(lines).toHaveLength(3);
    expect(await lots()).toBe(0);
  });

  it('refuses a 600 MB file and a NUL byte on one line naming the limit or the rule, no stack trace', async () => {
    const huge = path.join(dir, 'huge.csv');
    writeFileSync(huge, `${HEADER}\n`);
    truncateSync(huge, 600 * 1024 * 1024); // sparse: no 600 MB written to disk
    const big = await runCliLive(['cost-basis', 'import', '--file', huge], env());
    expect(big.status).toBe(EXIT.badInput);
    expect(big.stderr.trim().split('\n')).toEqual([
      `ValidationError: --file: must be at most 16,777,216 bytes (16 MiB) (got ${JSON.stringify(huge)})`,
    ]);
    const nul = await runCliLive(
      ['cost-basis', 'import', '--file', file('nul.csv', `${HEADER}\nETH,1,2024-01-10,1\u0000,GBP,bank,\n`)],
      env(),
    );
    expect(nul.status).toBe(EXIT.badInput);
    expect(nul.stderr.trim().split('\n')).toEqual([
      'ValidationError: line 2: must not contain a NUL byte (the file is binary or damaged: save it as CSV)',
    ]);
    expect(await lots()).toBe(0);
  });

  it('takes USD, saying which reports it prices (not uk or de); lists who supplied it; withdraws it with a reason', async () => {
    const good = file('usd.csv', `${HEADER}\nETH,1,2024-01-10,1500,USD,broker,\n`);
    const first = await runCliLive(['cost-basis', 'import', '--file', good], env());
    expect(first.stderr).toBe('');
    const out = first.stdout.trim().split('\n');
    expect(out[0]).toMatch(/^1 rows: 1 lots added \(import (\d+)\)$/);
    expect(out[1]).toBe(
      '  USD: prices the lot methods (fifo, lifo, hifo, average) valued in USD only, not uk (GBP) or de (EUR)',
    );
    const id = /import (\d+)/.exec(out[0]!)![1]!;
    const withdrawn = await runCliLive(
      ['cost-basis', 'withdraw', '--import', id, '--reason', 'the statement was in pounds'],
      env(),
    );
    expect(withdrawn.stderr).toBe('');
    expect(withdrawn.stdout.trim()).toMatch(new RegExp(`^import ${id} withdrawn at \\S+Z by cli:\\S+$`));
    const listed = await runCliLive(['cost-basis', 'list'], env());
    expect(listed.stdout.trim()).toMatch(
      new RegExp(
        `^import ${id} usd\\.csv: 1 lots in USD from broker, supplied by cli:\\S+ at \\S+Z WITHDRAWN \\S+Z by cli:\\S+: the statement was in pounds$`,
      ),
    );
    const again = await runCliLive(['cost-basis', 'withdraw', '--import', id, '--reason', 'twice'], env());
    expect(again.status).toBe(EXIT.badInput);
    expect(again.stderr).toMatch(/^ValidationError: import: was already withdrawn on \S+Z by cli:\S+/);
  });
});
