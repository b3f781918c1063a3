import { Writable } from 'node:stream';

import { describe, expect, it } from 'vitest';

import { parseExportRequest, reportParams } from '../../src/export/export-request.ts';
import { reportByName } from '../../src/export/reports/index.ts';
import { streamReport } from '../../src/export/stream-report.ts';
import { useTestDatabase } from '../helpers/test-database.ts';
import { insertAccount, withClient } from './seed.ts';

const db = useTestDatabase('exportstream');

async function seedMany(accountId: string, rows: number): Promise<void> {
  await withClient(db.url, (c) =>
    c.query(
      `INSERT INTO spot_record (account_id, record_id, coin, spot_tax_type, amount, fee, balance, biz_order_id, ts, raw)
       SELECT $1::uuid, g::text, 'BTC', 'Deposit', g::numeric / 1000, 0, g, '', timestamptz '2026-05-01' + g * interval '1 second', '{}'
       FROM generate_series(1, $2::int) AS g`,
      [accountId, rows],
    ),
  );
}

async function exportConnections(): Promise<number> {
  const name = new URL(db.url).pathname.slice(1);
  return withClient(db.url, async (c) => {
    const result = await c.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = 'ledgerline-export'`,
      [name],
    );
    return Number(result.rows[0]!.n);
  });
}

describe('streaming', () => {
  it('streams many batches in order and counts every row', async () => {
    const accountId = await insertAccount(db.url, 'many');
    await seedMany(accountId, 25_000);
    const request = parseExportRequest({ report: 'spot-ledger', accountId, from: '2026-05-01', to: '2026-05-31' });
    let text = '';
    const sink = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        text += chunk.toString('utf8');
        callback();
      },
    });
    const result = await streamReport({
      databaseUrl: db.url,
      report: reportByName('spot-ledger'),
      params: reportParams(request),
      sink,
      batchSize: 700,
    });
    const ids = text
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((line) => Number(line.split(',')[0]!.replace(/^spot:/, '')));
    expect(result.rowCount).toBe(25_000);
    expect(ids).toEqual(Array.from({ length: 25_000 }, (_, i) => i + 1));
    expect(result.bytes).toBe(Buffer.byteLength(text));
  });

  it('stops the cursor and closes its connection when the receiver fails midway', async () => {
    const accountId = await insertAccount(db.url, 'abort');
    await seedMany(accountId, 30_000);
    const request = parseExportRequest({ report: 'spot-ledger', accountId, from: '2026-05-01', to: '2026-05-31' });
    let writes = 0;
    const sink = new Writable({
      write(_chunk, _encoding, callback) {
        writes++;
        callback(writes === 3 ? new Error('client went away') : null);
      },
    });
    await expect(
      streamReport({ databaseUrl: db.url, report: reportByName('spot-ledger'), params: reportParams(request), sink }),
    ).rejects.toThrow('client went away');
    expect(writes).toBe(3);
    expect(await exportConnections()).toBe(0);
  });
});
