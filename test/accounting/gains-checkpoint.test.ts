import { PassThrough } from 'node:stream';

import { beforeAll, describe, expect, it } from 'vitest';

import { parseExportRequest, reportParams } from '../../src/export/export-request.ts';
import { reportFor } from '../../src/export/reports/index.ts';
import { streamReport } from '../../src/export/stream-report.ts';
import { insertAccount, insertSpot, type SpotRow, withClient } from '../export/seed.ts';
import { useTestDatabase } from '../helpers/test-database.ts';

/**
 * A month's gains walk from a checkpoint at the month's start (checkpointed-walk.ts) and must write
 * the very bytes a walk from the first record writes, also after the history before the checkpoint
 * changed (a late record, a late leg of an order dated before it, a price): then the checkpoint
 * must not be used. "Full walk" below is an export with no checkpoint stored: it walks from the
 * first record (and stores checkpoints again).
 */
const db = useTestDatabase('gainsckpt');
let accountId: string;

const at = (iso: string) => (iso.length === 10 ? `${iso}T12:00:00.000Z` : iso);
let orders = 0;
/** A paired trade: `give` of one coin for `get` of another. */
function trade(ts: string, give: [string, string], get: [string, string], fee?: string): SpotRow[] {
  const id = `o${++orders}`;
  const type = give[1] === 'USDT' ? 'Buy' : 'Sell';
  return [
    { recordId: `${id}a`, coin: give[1], spotTaxType: type, amount: `-${give[0]}`, bizOrderId: id, ts: at(ts) },
    { recordId: `${id}b`, coin: get[1], spotTaxType: type, amount: get[0], fee, bizOrderId: id, ts: at(ts) },
  ];
}

const HISTORY: SpotRow[] = [
  ...trade('2026-01-05', ['3000', 'USDT'], ['0.05', 'BTC'], '-0.00005'),
  ...trade('2026-01-20', ['2000', 'USDT'], ['1', 'ETH']),
  { recordId: 'i1', coin: 'SOL', spotTaxType: 'Interest', amount: '2', ts: at('2026-02-03') },
  ...trade('2026-02-10', ['6600', 'USDT'], ['0.1', 'BTC']),
  ...trade('2026-03-02', ['0.03', 'BTC'], ['2000', 'USDT'], '-2'),
  // BTC for ETH: both sides valued at the market (the ETH lot's cost is ETH's price that day).
  ...trade('2026-03-10', ['0.02', 'BTC'], ['0.4', 'ETH']),
  { recordId: 'w1', coin: 'ETH', spotTaxType: 'Withdrawal', amount: '-0.1', ts: at('2026-03-15') },
  ...trade('2026-03-20', ['300', 'USDT'], ['2', 'SOL']),
  // SOL locked before April, released in April with half a coin more than went away: the lots stay
  // while away, the half comes in of unknown cost (own-moves-away.ts). A checkpoint at April's start
  // holds the lots, not what is away: the resumed walk reads that from the records.
  { recordId: 'l1', coin: 'SOL', spotTaxType: 'System lock-up', amount: '-1', ts: at('2026-03-25') },
  { recordId: 'l2', coin: 'SOL', spotTaxType: 'Release', amount: '1.5', ts: at('2026-04-12') },
  // An order dated an hour before April: a late leg of it may still arrive dated in April.
  ...trade('2026-03-31T23:00:00.000Z', ['0.01', 'BTC'], ['0.2', 'ETH']),
  // April sells more than is held of each coin: every lot before April shows in its rows.
  ...trade('2026-04-03', ['0.2', 'BTC'], ['13000', 'USDT']),
  ...trade('2026-04-10', ['2', 'ETH'], ['7000', 'USDT']),
  ...trade('2026-04-15', ['3', 'SOL'], ['500', 'USDT']),
  { recordId: 'i2', coin: 'BTC', spotTaxType: 'Interest', amount: '0.001', ts: at('2026-04-20') },
  ...trade('2026-05-05', ['3100', 'USDT'], ['0.05', 'BTC']),
  ...trade('2026-05-12', ['0.02', 'BTC'], ['1300', 'USDT']),
  ...trade('2026-06-02', ['0.05', 'BTC'], ['3300', 'USDT']),
];

beforeAll(async () => {
  accountId = await insertAccount(db.url, 'ckpt');
  await insertSpot(db.url, accountId, HISTORY);
  // Daily imported closes, a different price every day; USDT in euros for `de`.
  await withClient(db.url, (c) =>
    c.query(`INSERT INTO price (time, base, quote, price, source)
      SELECT timestamptz '2025-12-25' + d * interval '1 day', p.base, p.quote, p.price + d * p.step, 'daily'
        FROM generate_series(0, 200) AS d
       CROSS JOIN (VALUES ('BTC', 'USDT', 60000, 70), ('ETH', 'USDT', 2000, 3.1), ('SOL', 'USDT', 150, -0.2),
                          ('USDT', 'EUR', 0.9, 0.0003)) AS p(base, quote, price, step)`),
  );
});

type Method = 'fifo' | 'lifo' | 'hifo' | 'average' | 'de' | 'uk';

/** `method` undefined: a report that takes none (income walks with fifo). */
async function exportBytes(
  method: Method | undefined,
  from: string,
  to: string,
  report = 'realized-gains',
): Promise<string> {
  const request = parseExportRequest({ report, accountId, from, to, tz: 'UTC', method });
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on('data', (c: Buffer) => chunks.push(c));
  await streamReport({
    databaseUrl: db.url,
    report: reportFor(report, request.method),
    params: reportParams(request, 'main', { currency: 'USDT', priceToleranceMs: 36 * 3_600_000 }),
    sink,
  });
  return Buffer.concat(chunks).toString('utf8');
}

const sql = <T extends object = Record<string, string>>(text: string, values: unknown[] = []) =>
  withClient(db.url, async (c) => (await c.query<T>(text, values)).rows);

/** The export with no checkpoint stored: a walk from the first record. */
async function fullWalk(method: Method | undefined, from: string, to: string, report?: string): Promise<string> {
  await sql('DELETE FROM gains_checkpoint');
  return exportBytes(method, from, to, report);
}

const checkpointsOf = (method: Method) =>
  sql<{ as_of: string; input_count: string }>(
    `SELECT to_char(as_of AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS as_of, input_count::text AS input_count
       FROM gains_checkpoint WHERE method = $1 ORDER BY as_of`,
    [method],
  );

describe('a month of realized gains from a checkpoint', () => {
  it.each<Method>(['fifo', 'lifo', 'hifo', 'average', 'de'])(
    '%s: the same bytes as the walk from the first record, for the month the checkpoint starts and the next',
    async (method) => {
      const april = await fullWalk(method, '2026-04-01', '2026-04-30');
      // The full walk stored the state at each month start it passed and at April's end.
      expect((await checkpointsOf(method)).map((c) => c.as_of)).toEqual([
        '2026-02-01',
        '2026-03-01',
        '2026-04-01',
        '2026-05-01',
      ]);
      expect(april.split('\n').length).toBeGreaterThan(8);
      expect(await exportBytes(method, '2026-04-01', '2026-04-30')).toBe(april);
      const may = await exportBytes(method, '2026-05-01', '2026-05-31');
      expect(may).toBe(await fullWalk(method, '2026-05-01', '2026-05-31'));
      // A period that is not a month walks from the month start before it.
      const span = await exportBytes(method, '2026-03-20', '2026-04-12');
      expect(span).toBe(await fullWalk(method, '2026-03-20', '2026-04-12'));
    },
  );

  it('income from a checkpoint is the full walk’s too', async () => {
    const full = await fullWalk(undefined, '2026-04-01', '2026-04-30', 'income');
    expect(full).toContain('BTC');
    expect((await checkpointsOf('fifo')).length).toBe(4);
    expect(await exportBytes(undefined, '2026-04-01', '2026-04-30', 'income')).toBe(full);
  });

  it('starts from a valid checkpoint: a lot altered in it shows in the month (and nowhere else is it read)', async () => {
    const april = await fullWalk('fifo', '2026-04-01', '2026-04-30');
    await sql(`UPDATE gains_lot_checkpoint l SET lots = jsonb_set(l.lots, '{0,cost}', '"12345.678"')
                 FROM gains_checkpoint c
                WHERE l.checkpoint_id = c.id AND c.method = 'fifo' AND c.as_of = '2026-04-01' AND l.coin = 'BTC'`);
    const altered = await exportBytes('fifo', '2026-04-01', '2026-04-30');
    expect(altered).not.toBe(april);
    expect(altered).toContain('12345.678');
    await sql('DELETE FROM gains_checkpoint');
  });

  it('uk walks from the first record and stores no checkpoint', async () => {
    await sql('DELETE FROM gains_checkpoint');
    expect(await exportBytes('uk', '2026-04-01', '2026-04-30')).toContain('BTC');
    expect(await sql(`SELECT method FROM gains_checkpoint`)).toEqual([]);
  });
});

describe('a checkpoint whose history changed later is not used', () => {
  it.each<Method>(['fifo', 'de'])('%s: a record inserted late before the checkpoint', async (method) => {
    const before = await fullWalk(method, '2026-04-01', '2026-04-30');
    const stored = await checkpointsOf(method);
    await insertSpot(db.url, accountId, trade('2026-02-15', ['1000', 'USDT'], ['0.02', 'BTC']));
    const after = await exportBytes(method, '2026-04-01', '2026-04-30');
    // Rebuilt: the walk that ignored them stored the later checkpoints again, from a newer snapshot.
    const rebuilt = await checkpointsOf(method);
    expect(after).not.toBe(before);
    expect(after).toBe(await fullWalk(method, '2026-04-01', '2026-04-30'));
    const count = (list: typeof stored, day: string) => Number(list.find((c) => c.as_of === day)!.input_count);
    expect(count(rebuilt, '2026-04-01')).toBeGreaterThan(count(stored, '2026-04-01'));
    expect(count(rebuilt, '2026-02-01')).toBe(count(stored, '2026-02-01'));
    await sql(`DELETE FROM spot_record WHERE biz_order_id = $1`, [`o${orders}`]);
  });

  it('a late leg dated after the checkpoint of an order dated before it', async () => {
    const before = await fullWalk('fifo', '2026-04-01', '2026-04-30');
    // Order of 31 March 23:00 gains a second ETH leg at 1 April 01:00: one entry, dated 31 March.
    const late = HISTORY.find((r) => r.ts === '2026-03-31T23:00:00.000Z' && r.coin === 'ETH')!;
    await insertSpot(db.url, accountId, [
      { ...late, recordId: `${late.recordId}-late`, amount: '0.05', ts: '2026-04-01T01:00:00.000Z' },
    ]);
    const after = await exportBytes('fifo', '2026-04-01', '2026-04-30');
    expect(after).not.toBe(before);
    expect(after).toBe(await fullWalk('fifo', '2026-04-01', '2026-04-30'));
    await sql(`DELETE FROM spot_record WHERE record_id = $1`, [`${late.recordId}-late`]);
  });

  it('a price changed before the checkpoint', async () => {
    const before = await fullWalk('hifo', '2026-04-01', '2026-04-30');
    // ETH's close of 10 March values the ETH bought with BTC that day.
    await sql(`UPDATE price SET price = price * 2 WHERE base = 'ETH' AND time = '2026-03-10'`);
    const after = await exportBytes('hifo', '2026-04-01', '2026-04-30');
    expect(after).not.toBe(before);
    expect(after).toBe(await fullWalk('hifo', '2026-04-01', '2026-04-30'));
    await sql(`UPDATE price SET price = price / 2 WHERE base = 'ETH' AND time = '2026-03-10'`);
  });

  it('a record met again unchanged logs nothing; a changed amount, a deletion and a price rewrite do', async () => {
    const logged = async () => Number((await sql(`SELECT count(*)::text AS n FROM gains_input_change`))[0]!.n);
    const start = await logged();
    await sql(`UPDATE spot_record SET read_id = 7, raw = raw || '{"seen": 2}' WHERE account_id = $1`, [accountId]);
    await sql(`UPDATE price SET price = price WHERE base = 'BTC'`);
    expect(await logged()).toBe(start);
    await sql(`UPDATE spot_record SET amount = amount WHERE record_id = 'i2'`);
    expect(await logged()).toBe(start);
    await sql(`UPDATE spot_record SET amount = '0.002' WHERE record_id = 'i2'`);
    await sql(`UPDATE spot_record SET amount = '0.001' WHERE record_id = 'i2'`);
    const rows = await sql<{ changed_from: string }>(
      `SELECT to_char(changed_from AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI') AS changed_from
         FROM gains_input_change ORDER BY id DESC LIMIT 2`,
    );
    expect(rows.map((r) => r.changed_from)).toEqual(['2026-04-20T12:00', '2026-04-20T12:00']);
    // Deleting a later leg dates the change at the order's earliest leg.
    const [legA] = trade('2026-06-20', ['10', 'USDT'], ['0.1', 'SOL']);
    const legB = { ...legA!, recordId: `${legA!.recordId}x`, coin: 'SOL', amount: '0.1', ts: at('2026-06-25') };
    await insertSpot(db.url, accountId, [legA!, legB]);
    await sql(`DELETE FROM spot_record WHERE record_id = $1`, [legB.recordId]);
    const deleted = await sql<{ changed_from: string }>(
      `SELECT to_char(changed_from AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS changed_from
         FROM gains_input_change ORDER BY id DESC LIMIT 1`,
    );
    expect(deleted[0]!.changed_from).toBe('2026-06-20');
    await sql(`DELETE FROM spot_record WHERE biz_order_id = $1`, [legA!.bizOrderId]);
  });
});
