import { execFileSync } from 'node:child_process';
import pg from 'pg';
import { fullDisk } from '/work/wt/rel/test/helpers/database-write-block.ts';
import { migrateDatabase } from '/work/wt/rel/src/db/migrations.ts';
const url = `postgresql://postgres@127.0.0.1:5432/ll_repro_full_${process.pid}`;
const way = fullDisk();
await way.create(url);
await migrateDatabase(url);
const c0 = new pg.Client({ connectionString: url }); await c0.connect(); await c0.query('select 1'); await c0.end();
const oid = (await (async () => { const c = new pg.Client({ connectionString: url }); await c.connect(); const r = await c.query('select oid, current_setting(\'data_directory\') d from pg_database where datname=current_database()'); await c.end(); return r.rows[0]; })());
console.log(oid);
await way.block();
const out = execFileSync('sh', ['-c', `find /tmp -maxdepth 5 -name pg_internal.init -path '*ll-full*' | head; df -k /tmp/ll-full-* | tail -3`]).toString();
console.log(out);
// Remove the init file, as a restart or a catalog invalidation does: the next session must write it.
execFileSync('sh', ['-c', `f=$(find /tmp -maxdepth 5 -name pg_internal.init -path '*ll-full*'); ls -la $f; rm -f $f; m=$(dirname $(dirname $(dirname $f))); dd if=/dev/zero of=$m/filler bs=1k 2>/dev/null; true; df -k $m | tail -1`], { stdio: 'inherit' });
const c = new pg.Client({ connectionString: url });
try { await c.connect(); console.log('connected'); await c.query('select 1'); console.log('query ok'); } catch (e) { console.log('ERR', (e as any).code, (e as any).severity, (e as Error).message); }
await c.end().catch(() => {});
console.log(execFileSync('sh', ['-c', `ls -la $(dirname $(find /tmp -maxdepth 4 -type d -name 29* -path '*ll-full*' | head -1))/*/pg_internal* 2>&1; df -k /tmp/ll-full-* | tail -1`]).toString());
await way.unblock(); await way.remove();
