import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  gainsTriggerBody,
  gainsTriggerFunction,
  gainsTriggerSql,
} from '../../src/accounting/gains/gains-input-triggers.ts';
import { streamDefinition, TAXED_HISTORIES, WALLET_LEDGERS } from '../../src/streams/registry.ts';
import { useTestDatabase } from '../helpers/test-database.ts';

/**
 * Issue 42 item 8: every table the gains walk reads logs its changes in gains_input_change (a
 * stored checkpoint after a change must stop matching), and a wallet ledger's triggers are written
 * from its declaration (gains-input-triggers.ts), not by hand: a ledger registered without them in
 * a migration fails here, named, with the command that prints them.
 */
const db = useTestDatabase('gainstriggers');
let client: pg.Client;

beforeAll(async () => {
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
});
afterAll(async () => {
  await client?.end();
});

interface TriggerRow {
  tgname: string;
  proname: string;
  prosrc: string;
  tgtype: number;
}

const triggersOn = async (table: string) =>
  (
    await client.query<TriggerRow>(
      `SELECT t.tgname, p.proname, p.prosrc, t.tgtype::int AS tgtype
         FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid
        WHERE t.tgrelid = to_regclass($1) AND NOT t.tgisinternal ORDER BY t.tgname`,
      [table],
    )
  ).rows;

/** pg_trigger.tgtype's statement bits. */
const EVENT_BITS = { insert: 4, delete: 8, update: 16, truncate: 32 } as const;

describe('the gains input triggers', () => {
  it('log every kind of statement on every table of a history the walk reads', async () => {
    for (const stream of TAXED_HISTORIES) {
      const table = streamDefinition(stream).table.table;
      const logging = (await triggersOn(table)).filter((t) => t.prosrc.includes('gains_input_change'));
      const events = Object.entries(EVENT_BITS)
        .filter(([, bit]) => logging.some((t) => (t.tgtype & bit) !== 0))
        .map(([event]) => event);
      expect(`${stream} (${table}): ${events.join(', ')}`).toBe(
        `${stream} (${table}): insert, delete, update, truncate`,
      );
    }
  });

  it('are, for each wallet ledger, the ones its declaration writes (npm run db:gains-triggers -- <stream>)', async () => {
    for (const stream of WALLET_LEDGERS) {
      const table = streamDefinition(stream).table.table;
      const fn = gainsTriggerFunction(stream);
      const found = (await triggersOn(table)).filter((t) => t.proname === fn);
      expect(
        found.map((t) => t.tgname),
        `${stream}: ${table} lacks its gains triggers; add \`npm run db:gains-triggers -- ${stream}\` to a migration`,
      ).toEqual([`${table}_gains_delete`, `${table}_gains_insert`, `${table}_gains_truncate`, `${table}_gains_update`]);
      expect(found[0]!.prosrc, `${stream}: ${fn} differs from what its declaration writes`).toBe(
        gainsTriggerBody(stream),
      );
    }
  });

  it('were written by hand once, as the generator writes them now: the migrations hold its text', () => {
    const dir = path.resolve(import.meta.dirname, '../../prisma/migrations');
    const migrations = readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => readFileSync(path.join(dir, d.name, 'migration.sql'), 'utf8'))
      .join('\n');
    for (const stream of WALLET_LEDGERS) {
      expect(migrations.includes(gainsTriggerSql(stream)), stream).toBe(true);
    }
  });
});
