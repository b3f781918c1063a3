import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import pg from 'pg';

import { databaseName, quoteIdent, withDatabase } from '../../src/db/ensure-database.ts';

/**
 * A way to make one test database refuse writes, and to let it write again. Each way names the
 * SQLSTATE the worker meets and how Postgres words the refusal.
 */
export interface WriteBlock {
  readonly name: string;
  readonly code: string;
  readonly refusal: RegExp;
  /** Creates the (empty) database the way this block needs it; migrations run after. */
  create(url: string): Promise<void>;
  block(): Promise<void>;
  unblock(): Promise<void>;
  /** Drops the database and whatever the block set up for it. */
  remove(): Promise<void>;
}

async function admin(url: string, run: (client: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ connectionString: withDatabase(url, 'postgres') });
  await client.connect();
  try {
    await run(client);
  } finally {
    await client.end();
  }
}

/** `default_transaction_read_only` on the database: sessions opened after it cannot write. */
export function readOnlyDatabase(): WriteBlock {
  let url = '';
  const set = (on: boolean) =>
    admin(url, (c) =>
      c.query(`ALTER DATABASE ${quoteIdent(databaseName(url))} SET default_transaction_read_only = ${on}`),
    );
  return {
    name: 'read-only',
    code: '25006',
    refusal: /cannot execute (UPDATE|INSERT) in a read-only transaction/,
    async create(target) {
      url = target;
      await admin(url, (c) => c.query(`CREATE DATABASE ${quoteIdent(databaseName(url))}`));
    },
    block: () => set(true),
    unblock: () => set(false),
    remove: () => admin(url, (c) => c.query(`DROP DATABASE IF EXISTS ${quoteIdent(databaseName(url))} WITH (FORCE)`)),
  };
}

/**
 * A real full disk: the database lives in a tablespace on a tmpfs of its own (root mounts it and
 * hands it to the server's `postgres` user). Blocking shrinks the tmpfs to what it holds, so the
 * next page a table or index needs is refused with ENOSPC (53100), the failure record included;
 * unblocking grows it again. WAL stays on the server's own disk, as on a data volume that fills.
 */
export function fullDisk(): WriteBlock & { fillToTheByte(options?: { initFile?: 'removed' | 'kept' }): void } {
  const mount = mkdtempSync(path.join(tmpdir(), 'll-full-'));
  const tablespace = `ll_full_${path.basename(mount).replace(/\W/g, '').toLowerCase()}`;
  let url = '';
  const sh = (cmd: string, ...args: string[]) => execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const usedKb = () => Number(sh('df', '--output=used', '-k', mount).toString().trim().split('\n').at(-1));
  return {
    name: 'full disk',
    code: '53100',
    refusal: /No space left on device/,
    async create(target) {
      url = target;
      sh('mount', '-t', 'tmpfs', '-o', 'size=64m,mode=0700', 'tmpfs', mount);
      sh('chown', 'postgres:postgres', mount);
      await admin(url, async (c) => {
        await c.query(`CREATE TABLESPACE ${tablespace} LOCATION '${mount}'`);
        await c.query(`CREATE DATABASE ${quoteIdent(databaseName(url))} TABLESPACE ${tablespace}`);
      });
    },
    async block() {
      // The server writes dirty pages back lazily: a checkpoint first, so what it holds is on the tmpfs.
      await admin(url, (c) => c.query('CHECKPOINT'));
      sh('mount', '-o', `remount,size=${usedKb() + 4}k`, mount);
    },
    /**
     * After `block`: the database's relation-cache init file gone (as a catalog change or a server
     * restart leaves it) and its space taken by a filler, to the byte: every new session must write
     * the file again and cannot (FATAL "could not write init file"), while sessions already open go on.
     * `initFile: 'kept'`: the file stays, so new sessions start and only writes needing a page fail.
     */
    fillToTheByte(options: { initFile?: 'removed' | 'kept' } = {}) {
      const remove = options.initFile === 'kept' ? 'true' : `rm -f ${mount}/PG_*/*/pg_internal.init`;
      sh('sh', '-c', `${remove} && (dd if=/dev/zero of=${mount}/filler bs=1k 2>/dev/null; true)`);
    },
    async unblock() {
      sh('rm', '-f', path.join(mount, 'filler'));
      sh('mount', '-o', 'remount,size=64m', mount);
    },
    async remove() {
      await admin(url, async (c) => {
        await c.query(`DROP DATABASE IF EXISTS ${quoteIdent(databaseName(url))} WITH (FORCE)`);
        await c.query(`DROP TABLESPACE IF EXISTS ${tablespace}`);
      });
      sh('umount', mount);
      rmSync(mount, { recursive: true, force: true });
    },
  };
}
