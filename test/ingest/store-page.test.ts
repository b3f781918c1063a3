import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { SecretBox } from '../../src/crypto/secret-box.ts';
import { storePage } from '../../src/ingest/coverage/store-page.ts';
import { WindowConflictError } from '../../src/ingest/coverage/window-conflict-error.ts';
import { coveredRanges, ensureWindows, findGaps, getWindow } from '../../src/ingest/coverage/window-store.ts';
import { DuplicateRecordError } from '../../src/ingest/duplicate-record-error.ts';
import type { SpotLedgerRecord } from '../../src/streams/spot/columns.ts';
import { spotRecordTable } from '../../src/streams/spot/table.ts';
import type { TransferRecord } from '../../src/streams/transfers/columns.ts';
import { brokerTransferTable } from '../../src/streams/transfers/table.ts';
import { useTestDatabase } from '../helpers/test-database.ts';

const db = useTestDatabase('storepage');
let pool: pg.Pool;
let accountId: string;

beforeAll(async () => {
  pool = new pg.Pool({ connectionString: db.url, max: 4 });
  const box = new SecretBox(Buffer.alloc(32, 7));
  const account = await db.prisma.account.create({
    data: {
      name: 'acc',
      baseUrl: 'http://127.0.0.1:1',
      apiKey: 'k',
      secretEnc: box.seal('s'),
      passphraseEnc: box.seal('p'),
    },
  });
  accountId = account.id;
});
afterAll(async () => {
  await pool.end();
});

function spot(id: string, amount: string, extra: Partial<SpotLedgerRecord> = {}): SpotLedgerRecord {
  const base = {
    id,
    coin: 'BTC',
    spotTaxType: 'Deposit',
    amount,
    fee: '0',
    balance: amount,
    bizOrderId: `b${id}`,
    ts: '1767225600123',
  };
  const record = { ...base, ...extra };
  const { raw: _raw, ...fields } = record as SpotLedgerRecord;
  return { ...record, raw: { ...fields } };
}

const DAY = 86_400_000;

describe('storePage', () => {
  it('stores rows and advances the cursor together; re-reading changes nothing', async () => {
    const [w] = await ensureWindows(pool, [{ accountId, stream: 'spot', scope: '', start: 0, end: DAY }]);
    const page = [spot('11', '1.50'), spot('10', '-0.000000000000000000000001', { spotTaxType: 'Brand new type' })];
    const first = await storePage(pool, {
      windowId: w!.id,
      accountId,
      spec: spotRecordTable,
      records: page,
      fromCursor: null,
      nextCursor: '10',
      last: false,
    });
    expect(first).toEqual({ inserted: 2, updated: 0, unchanged: 0, revised: 0 });
    const rows = await pool.query(`SELECT record_id, amount::text, unmapped, ts FROM spot_record ORDER BY record_id`);
    // Exact as received: scale kept, no float, no exponent.
    expect(rows.rows.map((r) => r.amount)).toEqual(['-0.000000000000000000000001', '1.50']);
    expect(rows.rows[0].unmapped).toEqual(['spotTaxType']);
    expect(rows.rows[1].unmapped).toEqual([]);
    expect((rows.rows[0].ts as Date).toISOString()).toBe('2026-01-01T00:00:00.123Z');

    const stored = await getWindow(pool, w!.id);
    expect(stored).toMatchObject({ cursor: '10', pages: 1, rows: 2, status: 'running' });

    const again = await storePage(pool, {
      windowId: w!.id,
      accountId,
      spec: spotRecordTable,
      records: page,
      fromCursor: '10',
      nextCursor: null,
      last: true,
    });
    expect(again).toEqual({ inserted: 0, updated: 0, unchanged: 2, revised: 0 });
    expect(await getWindow(pool, w!.id)).toMatchObject({ status: 'done', cursor: null, pages: 2 });
  });

  it('rolls back the rows when the cursor does not continue from the stored one', async () => {
    const [w] = await ensureWindows(pool, [{ accountId, stream: 'spot', scope: '', start: DAY, end: 2 * DAY }]);
    await expect(
      storePage(pool, {
        windowId: w!.id,
        accountId,
        spec: spotRecordTable,
        records: [spot('99', '5')],
        fromCursor: 'stale',
        nextCursor: '99',
        last: false,
      }),
    ).rejects.toBeInstanceOf(WindowConflictError);
    const found = await pool.query(`SELECT 1 FROM spot_record WHERE record_id = '99'`);
    expect(found.rowCount).toBe(0);
    expect(await getWindow(pool, w!.id)).toMatchObject({ cursor: null, pages: 0 });
  });

  it('updates a transfer a later read finds settled in place: same row, new status and ts, the pending copy kept', async () => {
    // The first read stores it pending; the next night's lookback (another window) reads it settled.
    const [w, lookback] = await ensureWindows(pool, [
      { accountId, stream: 'transfers', scope: '', start: 0, end: DAY },
      { accountId, stream: 'transfers', scope: '', start: DAY / 2, end: 2 * DAY },
    ]);
    const pending: TransferRecord = {
      uid: 'sub1',
      txId: 'tx1',
      coin: 'USDT',
      type: 'withdrawal',
      subType: 'onchain',
      amount: '12.5',
      status: 'pending',
      ts: '1000',
      raw: { txId: 'tx1', status: 'pending', ts: '1000' },
    };
    const settled: TransferRecord = {
      ...pending,
      status: 'success',
      ts: '5000',
      raw: { txId: 'tx1', status: 'success', ts: '5000' },
    };
    const odd: TransferRecord = {
      ...pending,
      txId: 'tx2',
      status: 'reversed',
      subType: 'teleport',
      raw: { txId: 'tx2' },
    };
    await storePage(pool, {
      windowId: w!.id,
      accountId,
      spec: brokerTransferTable,
      records: [pending, odd],
      fromCursor: null,
      nextCursor: 'a',
      last: false,
    });
    const stats = await storePage(pool, {
      windowId: lookback!.id,
      accountId,
      spec: brokerTransferTable,
      records: [settled],
      fromCursor: null,
      nextCursor: null,
      last: true,
    });
    expect(stats).toEqual({ inserted: 0, updated: 1, unchanged: 0, revised: 1 });
    const revision = await pool.query(`SELECT old_raw, new_raw FROM record_revision WHERE window_id = $1`, [
      lookback!.id,
    ]);
    expect(revision.rows).toEqual([{ old_raw: pending.raw, new_raw: settled.raw }]);
    const rows = await pool.query(
      `SELECT tx_id, status::text, sub_type::text, unmapped, ts FROM broker_transfer ORDER BY tx_id`,
    );
    expect(rows.rows).toHaveLength(2);
    expect(rows.rows[0]).toMatchObject({ tx_id: 'tx1', status: 'success' });
    expect((rows.rows[0].ts as Date).getTime()).toBe(5000);
    expect(rows.rows[1]).toMatchObject({
      tx_id: 'tx2',
      status: 'unknown',
      sub_type: 'unknown',
      unmapped: ['subType', 'status'],
    });
  });

  it('never sets a settled transfer back to pending from an older copy another window committed later', async () => {
    const [older, newer] = await ensureWindows(pool, [
      { accountId, stream: 'transfers', scope: '', start: 0, end: 2 * DAY },
      { accountId, stream: 'transfers', scope: '', start: DAY, end: 3 * DAY },
    ]);
    const pending: TransferRecord = {
      uid: 'sub1',
      txId: 'tx-late',
      coin: 'USDT',
      type: 'deposit',
      subType: 'onchain',
      amount: '3',
      status: 'pending',
      ts: String(1.6 * DAY),
      raw: { txId: 'tx-late', status: 'pending', ts: String(1.6 * DAY) },
    };
    const settled: TransferRecord = {
      ...pending,
      status: 'success',
      ts: String(2.5 * DAY),
      raw: { txId: 'tx-late', status: 'success', ts: String(2.5 * DAY) },
    };
    // The newer window read it settled and committed first; the older one read it pending earlier.
    const page = { accountId, spec: brokerTransferTable, fromCursor: null, nextCursor: null, last: true };
    await storePage(pool, { ...page, windowId: newer!.id, records: [settled] });
    const stats = await storePage(pool, { ...page, windowId: older!.id, records: [pending] });
    expect(stats).toEqual({ inserted: 0, updated: 0, unchanged: 1, revised: 0 });
    const row = await pool.query(`SELECT status::text, ts FROM broker_transfer WHERE tx_id = 'tx-late'`);
    expect(row.rows[0].status).toBe('success');
    expect((row.rows[0].ts as Date).getTime()).toBe(2.5 * DAY);
  });

  it('stores identical copies of one record in a page once', async () => {
    const [w] = await ensureWindows(pool, [{ accountId, stream: 'spot', scope: 'dup', start: 0, end: DAY }]);
    const stats = await storePage(pool, {
      windowId: w!.id,
      accountId,
      spec: spotRecordTable,
      records: [spot('500', '1'), spot('500', '1')],
      fromCursor: null,
      nextCursor: null,
      last: true,
    });
    expect(stats).toEqual({ inserted: 1, updated: 0, unchanged: 0, revised: 0 });
    const row = await pool.query(`SELECT amount::text FROM spot_record WHERE record_id = '500'`);
    expect(row.rows).toEqual([{ amount: '1' }]);
  });

  it('refuses a page holding two different records with one id, naming it, and stores neither', async () => {
    const [w] = await ensureWindows(pool, [{ accountId, stream: 'spot', scope: 'dup2', start: 0, end: DAY }]);
    const page = {
      windowId: w!.id,
      accountId,
      spec: spotRecordTable,
      records: [spot('501', '1'), spot('502', '3'), spot('501', '2')],
      fromCursor: null,
      nextCursor: '501',
      last: false,
    };
    const error = await storePage(pool, page).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DuplicateRecordError);
    expect(error).toMatchObject({
      message: 'one page holds two different spot_record records with the key record_id=501: neither is stored',
      field: 'spot_record.record_id',
      retryable: false,
    });
    const rows = await pool.query(`SELECT record_id FROM spot_record WHERE record_id IN ('501', '502')`);
    expect(rows.rows).toEqual([]);
    expect(await getWindow(pool, w!.id)).toMatchObject({ cursor: null, pages: 0 });
  });

  it('treats copies of one record far apart in a full page as next to each other (COPY is sent in chunks)', async () => {
    const [w] = await ensureWindows(pool, [{ accountId, stream: 'spot', scope: 'dup3', start: 0, end: DAY }]);
    const records = Array.from({ length: 499 }, (_, i) => spot(String(10_000 + i), '1'));
    const same = await storePage(pool, {
      windowId: w!.id,
      accountId,
      spec: spotRecordTable,
      records: [...records, spot('10000', '1')],
      fromCursor: null,
      nextCursor: '10000',
      last: false,
    });
    expect(same).toEqual({ inserted: 499, updated: 0, unchanged: 0, revised: 0 });
    const [v] = await ensureWindows(pool, [{ accountId, stream: 'spot', scope: 'dup4', start: 0, end: DAY }]);
    const different = [...Array.from({ length: 499 }, (_, i) => spot(String(20_000 + i), '1')), spot('20000', '2')];
    const error = await storePage(pool, {
      windowId: v!.id,
      accountId,
      spec: spotRecordTable,
      records: different,
      fromCursor: null,
      nextCursor: '20000',
      last: false,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DuplicateRecordError);
    const rows = await pool.query(`SELECT count(*)::int AS n FROM spot_record WHERE record_id LIKE '2____'`);
    expect(rows.rows[0].n).toBe(0);
    expect(await getWindow(pool, v!.id)).toMatchObject({ cursor: null, pages: 0 });
  });

  it('stores a page holding some rows stored already: new ones inserted, the cursor advanced once', async () => {
    const [first, second] = await ensureWindows(pool, [
      { accountId, stream: 'spot', scope: 'mixed', start: 0, end: DAY },
      { accountId, stream: 'spot', scope: 'mixed', start: DAY, end: 2 * DAY },
    ]);
    const page = { accountId, spec: spotRecordTable, fromCursor: null, nextCursor: '700', last: false };
    await storePage(pool, { ...page, windowId: first!.id, records: [spot('701', '1')] });
    // An overlapping window reads 701 again (changed), and 702 new.
    const stats = await storePage(pool, {
      ...page,
      windowId: second!.id,
      records: [spot('702', '2'), spot('701', '1.5')],
    });
    expect(stats).toEqual({ inserted: 1, updated: 1, unchanged: 0, revised: 1 });
    const rows = await pool.query(`SELECT record_id, amount::text FROM spot_record WHERE record_id IN ('701', '702')`);
    expect(rows.rows.sort((a, b) => a.record_id.localeCompare(b.record_id))).toEqual([
      { record_id: '701', amount: '1.5' },
      { record_id: '702', amount: '2' },
    ]);
    expect(await getWindow(pool, second!.id)).toMatchObject({ cursor: '700', pages: 1, rows: 2 });
  });

  it('stores tabs, newlines and backslashes in values exactly as received', async () => {
    const [w] = await ensureWindows(pool, [{ accountId, stream: 'spot', scope: 'escapes', start: 0, end: DAY }]);
    const odd = 'a\tb\\N\nc\r\\d "q" ,{}';
    const record = spot('800', '1', { coin: odd, bizOrderId: '\\N' });
    await storePage(pool, {
      windowId: w!.id,
      accountId,
      spec: spotRecordTable,
      records: [record],
      fromCursor: null,
      nextCursor: '800',
      last: false,
    });
    const row = await pool.query(`SELECT coin, biz_order_id, raw FROM spot_record WHERE record_id = '800'`);
    expect(row.rows[0]).toEqual({ coin: odd, biz_order_id: '\\N', raw: record.raw });
  });

  it('leaves the pooled connection committing synchronously after a page stored without waiting', async () => {
    // One connection, so the statement after the page runs on the very connection that stored it.
    const single = new pg.Pool({ connectionString: db.url, max: 1 });
    try {
      const [w] = await ensureWindows(single, [{ accountId, stream: 'spot', scope: 'sync', start: 0, end: DAY }]);
      await storePage(single, {
        windowId: w!.id,
        accountId,
        spec: spotRecordTable,
        records: [spot('600', '1')],
        fromCursor: null,
        nextCursor: '600',
        last: false,
      });
      const setting = await single.query<{ synchronous_commit: string }>('SHOW synchronous_commit');
      expect(setting.rows[0]!.synchronous_commit).toBe('on');
      // The page itself still committed, rows and cursor together.
      expect(await getWindow(single, w!.id)).toMatchObject({ cursor: '600', pages: 1, rows: 1 });
    } finally {
      await single.end();
    }
  });
});

describe('coverage ledger', () => {
  it('registers windows idempotently and finds the gaps between done windows', async () => {
    const key = { accountId, stream: 'positions' as const, scope: 'USDT-FUTURES' };
    const windows = await ensureWindows(
      pool,
      [0, 1, 2, 3].map((i) => ({ ...key, start: i * DAY, end: (i + 1) * DAY })),
    );
    const again = await ensureWindows(pool, [{ ...key, start: 2 * DAY, end: 3 * DAY }]);
    expect(again[0]!.id).toBe(windows[2]!.id);
    for (const i of [0, 1, 3]) {
      await storePage(pool, {
        windowId: windows[i]!.id,
        accountId,
        spec: spotRecordTable,
        records: [],
        fromCursor: null,
        nextCursor: null,
        last: true,
      });
    }
    expect(await coveredRanges(pool, key)).toEqual([
      { start: 0, end: 2 * DAY },
      { start: 3 * DAY, end: 4 * DAY },
    ]);
    expect(await findGaps(pool, key, 0, 5 * DAY)).toEqual([
      { start: 2 * DAY, end: 3 * DAY },
      { start: 4 * DAY, end: 5 * DAY },
    ]);
    // refetch resets a done window to be read again
    const [reset] = await ensureWindows(pool, [{ ...key, start: 0, end: DAY }], true);
    expect(reset).toMatchObject({ status: 'pending', cursor: null, pages: 0 });
  });
});
