import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { SecretBox } from '../../src/crypto/secret-box.ts';
import { storePage } from '../../src/ingest/coverage/store-page.ts';
import { ensureWindows, getWindow } from '../../src/ingest/coverage/window-store.ts';
import { DuplicateRecordError } from '../../src/ingest/duplicate-record-error.ts';
import type { TableSpec } from '../../src/streams/kit/table-spec.ts';
import { futuresPositionTable, type ScopedPosition } from '../../src/streams/positions/table.ts';
import type { Stream } from '../../src/streams/registry.ts';
import type { SpotLedgerRecord } from '../../src/streams/spot/columns.ts';
import { spotRecordTable } from '../../src/streams/spot/table.ts';
import type { TransferRecord } from '../../src/streams/transfers/columns.ts';
import { brokerTransferTable } from '../../src/streams/transfers/table.ts';
import { useTestDatabase } from '../helpers/test-database.ts';

const db = useTestDatabase('onereadonerecord');
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

const DAY = 86_400_000;

function withRaw<T extends Record<string, string>>(fields: T): T & { raw: Record<string, unknown> } {
  return { ...fields, raw: { ...fields } };
}

const spot = (id: string, amount: string): SpotLedgerRecord =>
  withRaw({
    id,
    coin: 'BTC',
    spotTaxType: 'Deposit',
    amount,
    fee: '0',
    balance: amount,
    bizOrderId: `b${id}`,
    ts: '1000',
  });

const position = (id: string, pnl: string): ScopedPosition => ({
  productType: 'USDT-FUTURES',
  position: withRaw({
    positionId: id,
    symbol: 'BTCUSDT',
    marginCoin: 'USDT',
    holdSide: 'long',
    posMode: 'one_way_mode',
    marginMode: 'crossed',
    openAvgPrice: '100',
    closeAvgPrice: '101',
    openTotalPos: '1',
    closeTotalPos: '1',
    pnl,
    netProfit: pnl,
    totalFunding: '0',
    openFee: '0',
    closeFee: '0',
    cTime: '1000',
    uTime: '2000',
  }),
});

const transfer = (txId: string, amount: string): TransferRecord =>
  withRaw({
    uid: 'sub1',
    txId,
    coin: 'USDT',
    type: 'deposit',
    subType: 'onchain',
    amount,
    status: 'success',
    ts: '1000',
  });

interface StreamCase<R> {
  stream: Stream;
  scope: string;
  spec: TableSpec<R>;
  record(id: string, content: string): R;
  /** The stored raw of a key, and the key as the error names it. */
  rawOf: string;
  keyText(id: string): string;
}

const CASES: StreamCase<unknown>[] = [
  {
    stream: 'spot',
    scope: '',
    spec: spotRecordTable,
    record: spot,
    rawOf: `SELECT raw FROM spot_record WHERE account_id = $1 AND record_id = $2`,
    keyText: (id) => `record_id=${id}`,
  },
  {
    stream: 'positions',
    scope: 'USDT-FUTURES',
    spec: futuresPositionTable,
    record: position,
    rawOf: `SELECT raw FROM futures_position WHERE account_id = $1 AND position_id = $2`,
    keyText: (id) => `position_id=${id}`,
  },
  {
    stream: 'transfers',
    scope: '',
    spec: brokerTransferTable,
    record: transfer,
    rawOf: `SELECT raw FROM broker_transfer WHERE account_id = $1 AND tx_id = $2 AND type = 'deposit'`,
    keyText: (id) => `tx_id=${id}, type=deposit`,
  },
];

let nextDay = 0;
/** A window of its own for each test (windows are unique on their range). */
async function newWindow(stream: Stream, scope: string) {
  nextDay += 1;
  const [window] = await ensureWindows(pool, [
    { accountId, stream, scope, start: nextDay * DAY, end: (nextDay + 1) * DAY },
  ]);
  return window!;
}

/** The raw a record carries (a position's is inside its scoped wrapper). */
function rawOf(record: unknown): unknown {
  const r = record as { raw?: unknown; position?: { raw: unknown } };
  return r.raw ?? r.position?.raw;
}

async function storedRaw(c: StreamCase<unknown>, id: string): Promise<unknown> {
  const result = await pool.query<{ raw: unknown }>(c.rawOf, [accountId, id]);
  return result.rows[0]?.raw;
}

describe('one id, one record, in one read of a window', () => {
  it.each(CASES.map((c) => [c.stream, c] as const))(
    '%s: a later page repeating an earlier page’s id with other content, read after a resume, is refused; the first record stays',
    async (_stream, c) => {
      const window = await newWindow(c.stream, c.scope);
      const page = { windowId: window.id, accountId, spec: c.spec, last: false };
      const first = c.record('100', '1');
      await storePage(pool, { ...page, records: [c.record('101', '1'), first], fromCursor: null, nextCursor: 'A' });
      // A crash: the read resumes in another process, from the cursor stored in Postgres (nothing in memory).
      const resumed = new pg.Pool({ connectionString: db.url, max: 1 });
      try {
        const stored = await getWindow(resumed, window.id);
        const error = await storePage(resumed, {
          ...page,
          records: [c.record('100', '2'), c.record('99', '1')],
          fromCursor: stored!.cursor,
          nextCursor: 'B',
        }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(DuplicateRecordError);
        expect(error).toMatchObject({
          message:
            `a later page of one read repeats the ${c.spec.table} key ${c.keyText('100')} with other content: ` +
            'the record stored first is kept, the page is not stored',
          retryable: false,
        });
      } finally {
        await resumed.end();
      }
      expect(await storedRaw(c, '100')).toEqual(rawOf(first));
      expect(await storedRaw(c, '99')).toBeUndefined();
      expect(await getWindow(pool, window.id)).toMatchObject({ cursor: 'A', pages: 1, rows: 2 });
    },
  );

  it('stores the same id with identical content on a later page once, as within one page', async () => {
    const window = await newWindow('spot', 'same');
    const page = { windowId: window.id, accountId, spec: spotRecordTable, last: false };
    await storePage(pool, { ...page, records: [spot('200', '1')], fromCursor: null, nextCursor: 'A' });
    const again = await storePage(pool, {
      ...page,
      records: [spot('200', '1'), spot('199', '1')],
      fromCursor: 'A',
      nextCursor: 'B',
    });
    expect(again).toEqual({ inserted: 1, updated: 0, unchanged: 1, revised: 0 });
  });

  it('refuses a refetch whose later page gives other content to a record its first page read unchanged', async () => {
    const window = await newWindow('spot', 'refetch');
    const page = { windowId: window.id, accountId, spec: spotRecordTable };
    await storePage(pool, { ...page, records: [spot('300', '1')], fromCursor: null, nextCursor: null, last: true });
    await ensureWindows(
      pool,
      [{ accountId, stream: 'spot', scope: 'refetch', start: window.start, end: window.end }],
      true,
    );
    // The refetch's first page meets 300 as stored; its second page holds 300 again, different.
    const first = await storePage(pool, {
      ...page,
      records: [spot('300', '1')],
      fromCursor: null,
      nextCursor: 'A',
      last: false,
    });
    expect(first.unchanged).toBe(1);
    const error = await storePage(pool, {
      ...page,
      records: [spot('300', '5')],
      fromCursor: 'A',
      nextCursor: 'B',
      last: false,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DuplicateRecordError);
    expect(await storedRaw(CASES[0]!, '300')).toEqual(spot('300', '1').raw);
  });

  it.each(CASES.map((c) => [c.stream, c] as const))(
    '%s: a later read that finds a record changed updates it and keeps the old raw in record_revision',
    async (_stream, c) => {
      const earlier = await newWindow(c.stream, c.scope);
      const later = await newWindow(c.stream, c.scope);
      const page = { accountId, spec: c.spec, fromCursor: null, nextCursor: null, last: true };
      await storePage(pool, { ...page, windowId: earlier.id, records: [c.record('400', '1')] });
      const stats = await storePage(pool, {
        ...page,
        windowId: later.id,
        records: [c.record('400', '7'), c.record('401', '1')],
      });
      expect(stats.revised).toBe(1);
      expect(stats).toEqual({ inserted: 1, updated: 1, unchanged: 0, revised: 1 });
      const raw = (id: string, content: string) => rawOf(c.record(id, content));
      expect(await storedRaw(c, '400')).toEqual(raw('400', '7'));
      const revisions = await pool.query(
        `SELECT stream::text, record_key, old_raw, new_raw, window_id, replaced_at IS NOT NULL AS dated
           FROM record_revision WHERE account_id = $1 AND window_id = $2`,
        [accountId, later.id],
      );
      const key = Object.fromEntries(
        c
          .keyText('400')
          .split(', ')
          .map((pair) => pair.split('=')),
      );
      expect(revisions.rows).toEqual([
        {
          stream: c.stream,
          record_key: key,
          old_raw: raw('400', '1'),
          new_raw: raw('400', '7'),
          window_id: later.id,
          dated: true,
        },
      ]);
    },
  );
});
