import { filingSummary } from '../../src/export/filing/filing-summary.ts';
import pg from 'pg';
const url = 'postgresql://postgres@127.0.0.1:5432/ledgerline_demo';
const db = new pg.Pool({ connectionString: url });
const { rows } = await db.query(`SELECT id, name FROM account WHERE name='demo'`);
await db.end();
for (const method of (process.argv[2] ?? 'uk,de').split(',')) {
  const t = performance.now();
  const s = await filingSummary(url, { accountId: rows[0].id, accountName: 'demo', now: Date.now() }, method as 'uk');
  console.log(method, Math.round(performance.now() - t), 'ms', Object.keys(s!.years));
}
