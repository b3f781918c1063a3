import { randomUUID } from 'node:crypto';

import pg from 'pg';

import { type Stream, streamDefinition, STREAMS } from '../../src/streams/registry.ts';

/** Test data written straight into the history tables, as ingestion would store it. */

export interface SpotRow {
  recordId: string;
  coin: string;
  spotTaxType: string;
  amount: string;
  fee?: string;
  balance?: string;
  bizOrderId?: string;
  ts: string | number;
  unmapped?: string[];
}

export interface PositionRow {
  positionId: string;
  symbol: string;
  marginCoin: string;
  holdSide?: string;
  marginMode?: string;
  posMode?: string;
  openAvgPrice?: string;
  closeAvgPrice?: string;
  openTotalPos?: string;
  closeTotalPos?: string;
  pnl: string;
  netProfit?: string;
  totalFunding?: string;
  openFee?: string;
  closeFee?: string;
  cTime: string | number;
  uTime: string | number;
  raw?: Record<string, unknown>;
  unmapped?: string[];
}

export interface TransferRow {
  txId: string;
  type?: string;
  subUid?: string;
  coin: string;
  subType?: string;
  amount: string;
  status: string;
  ts: string | number;
  raw?: Record<string, unknown>;
  unmapped?: string[];
}

function toDate(value: string | number): string {
  return new Date(typeof value === 'number' ? value : value).toISOString();
}

export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function insertAccount(url: string, name: string): Promise<string> {
  const id = randomUUID();
  await withClient(url, (c) =>
    c.query(
      `INSERT INTO account (id, name, base_url, api_key, secret_enc, passphrase_enc, updated_at)
       VALUES ($1, $2, 'http://127.0.0.1:1', 'key', 'x', 'x', now())`,
      [id, name],
    ),
  );
  return id;
}

export async function insertSpot(url: string, accountId: string, rows: SpotRow[]): Promise<void> {
  await withClient(url, async (c) => {
    for (const r of rows) {
      const raw = {
        id: r.recordId,
        coin: r.coin,
        spotTaxType: r.spotTaxType,
        amount: r.amount,
        fee: r.fee ?? '0',
        balance: r.balance ?? '0',
        bizOrderId: r.bizOrderId ?? '',
        ts: String(new Date(toDate(r.ts)).getTime()),
      };
      await c.query(
        `INSERT INTO spot_record (account_id, record_id, coin, spot_tax_type, amount, fee, balance, biz_order_id, ts, raw, unmapped)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        [
          accountId,
          r.recordId,
          r.coin,
          r.spotTaxType,
          r.amount,
          r.fee ?? '0',
          r.balance ?? '0',
          r.bizOrderId ?? '',
          toDate(r.ts),
          raw,
          r.unmapped ?? [],
        ],
      );
    }
  });
}

const HOLD = ['long', 'short'];
const MARGIN = ['isolated', 'crossed'];
const POS = ['one_way_mode', 'hedge_mode'];

export async function insertPositions(url: string, accountId: string, rows: PositionRow[]): Promise<void> {
  await withClient(url, async (c) => {
    for (const r of rows) {
      const hold = r.holdSide ?? 'long';
      const margin = r.marginMode ?? 'crossed';
      const pos = r.posMode ?? 'one_way_mode';
      const raw = { positionId: r.positionId, holdSide: hold, marginMode: margin, posMode: pos, ...r.raw };
      await c.query(
        `INSERT INTO futures_position (account_id, position_id, product_type, symbol, margin_coin, hold_side, pos_mode,
           margin_mode, open_avg_price, close_avg_price, open_total_pos, close_total_pos, pnl, net_profit, total_funding,
           open_fee, close_fee, created_time, updated_time, raw, unmapped)
         VALUES ($1, $2, 'USDT-FUTURES', $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20)`,
        [
          accountId,
          r.positionId,
          r.symbol,
          r.marginCoin,
          HOLD.includes(hold) ? hold : 'unknown',
          POS.includes(pos) ? pos : 'unknown',
          MARGIN.includes(margin) ? margin : 'unknown',
          r.openAvgPrice ?? '100',
          r.closeAvgPrice ?? '101',
          r.openTotalPos ?? '1',
          r.closeTotalPos ?? '1',
          r.pnl,
          r.netProfit ?? r.pnl,
          r.totalFunding ?? '0',
          r.openFee ?? '0',
          r.closeFee ?? '0',
          toDate(r.cTime),
          toDate(r.uTime),
          raw,
          r.unmapped ?? [],
        ],
      );
    }
  });
}

export async function insertTransfers(url: string, accountId: string, rows: TransferRow[]): Promise<void> {
  await withClient(url, async (c) => {
    for (const r of rows) {
      const subType = r.subType ?? 'onchain';
      const raw = { txId: r.txId, status: r.status, subType, ...r.raw };
      await c.query(
        `INSERT INTO broker_transfer (account_id, tx_id, type, sub_uid, coin, sub_type, amount, status, ts, raw, unmapped)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        [
          accountId,
          r.txId,
          r.type ?? 'deposit',
          r.subUid ?? '1001',
          r.coin,
          ['onchain', 'internal', 'fast'].includes(subType) ? subType : 'unknown',
          r.amount,
          ['pending', 'fail', 'success'].includes(r.status) ? r.status : 'unknown',
          toDate(r.ts),
          raw,
          r.unmapped ?? [],
        ],
      );
    }
  });
}

export interface FuturesLedgerRow {
  recordId: string;
  productType?: string;
  symbol?: string;
  marginCoin: string;
  futureTaxType: string;
  amount: string;
  fee?: string;
  ts: number;
  unmapped?: string[];
}

export async function insertFuturesLedger(url: string, accountId: string, rows: FuturesLedgerRow[]): Promise<void> {
  await withClient(url, async (c) => {
    for (const r of rows) {
      const raw = { id: r.recordId, futureTaxType: r.futureTaxType, amount: r.amount, fee: r.fee ?? '0' };
      await c.query(
        `INSERT INTO futures_ledger_record (account_id, product_type, record_id, symbol, margin_coin, future_tax_type,
                                            amount, fee, ts, raw, unmapped)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        [
          accountId,
          r.productType ?? 'USDT-FUTURES',
          r.recordId,
          r.symbol ?? '',
          r.marginCoin,
          r.futureTaxType,
          r.amount,
          r.fee ?? '0',
          toDate(r.ts),
          raw,
          r.unmapped ?? [],
        ],
      );
    }
  });
}

/** Minimal CSV reader for the tests (RFC 4180 quoting), independent of the writer. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(cell);
      cell = '';
    } else if (ch === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += ch;
  }
  if (cell !== '' || row.length > 0) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}

/** The simulator's ground truth, stored exactly as ingestion stores what the exchange returns. */
export interface Truth {
  spot: Array<Record<string, string>>;
  positions: Array<Record<string, string>>;
  transfers: Array<Record<string, string>>;
  /** The futures ledger's records (with their productType), when a test stores that stream too. */
  futuresLedger?: Array<Record<string, string>>;
  /** The margin ledger's records (with their marginType), when a test stores that stream too. */
  marginLedger?: Array<Record<string, string>>;
  /** The P2P ledger's records, when a test stores that stream too. */
  p2pLedger?: Array<Record<string, string>>;
}

function msToIso(ms: string): string {
  return new Date(Number(ms)).toISOString();
}

export async function insertTruth(
  url: string,
  accountId: string,
  truth: Truth,
  productTypeOf: (symbol: string) => string,
): Promise<void> {
  await withClient(url, async (c) => {
    const s = truth.spot;
    await c.query(
      `INSERT INTO spot_record (account_id, record_id, coin, spot_tax_type, amount, fee, balance, biz_order_id, ts, raw)
       SELECT $1::uuid, * FROM unnest($2::text[], $3::text[], $4::text[], $5::numeric[], $6::numeric[], $7::numeric[],
         $8::text[], $9::timestamptz[], $10::jsonb[])`,
      [
        accountId,
        s.map((r) => r.id),
        s.map((r) => r.coin),
        s.map((r) => r.spotTaxType),
        s.map((r) => r.amount),
        s.map((r) => r.fee),
        s.map((r) => r.balance),
        s.map((r) => r.bizOrderId),
        s.map((r) => msToIso(r.ts!)),
        s.map((r) => JSON.stringify(r)),
      ],
    );
    const p = truth.positions;
    const time = (r: Record<string, string>, lower: string, camel: string) => msToIso(r[lower] ?? r[camel]!);
    await c.query(
      `INSERT INTO futures_position (account_id, position_id, product_type, symbol, margin_coin, hold_side, pos_mode,
         margin_mode, open_avg_price, close_avg_price, open_total_pos, close_total_pos, pnl, net_profit, total_funding,
         open_fee, close_fee, created_time, updated_time, raw)
       SELECT $1::uuid, * FROM unnest($2::text[], $3::product_type[], $4::text[], $5::text[], $6::hold_side[],
         $7::pos_mode[], $8::margin_mode[], $9::numeric[], $10::numeric[], $11::numeric[], $12::numeric[], $13::numeric[],
         $14::numeric[], $15::numeric[], $16::numeric[], $17::numeric[], $18::timestamptz[], $19::timestamptz[], $20::jsonb[])`,
      [
        accountId,
        p.map((r) => r.positionId),
        p.map((r) => productTypeOf(r.symbol!)),
        p.map((r) => r.symbol),
        p.map((r) => r.marginCoin),
        p.map((r) => r.holdSide),
        p.map((r) => r.posMode),
        p.map((r) => r.marginMode),
        p.map((r) => r.openAvgPrice),
        p.map((r) => r.closeAvgPrice),
        p.map((r) => r.openTotalPos),
        p.map((r) => r.closeTotalPos),
        p.map((r) => r.pnl),
        p.map((r) => r.netProfit),
        p.map((r) => r.totalFunding),
        p.map((r) => r.openFee),
        p.map((r) => r.closeFee),
        p.map((r) => time(r, 'ctime', 'cTime')),
        p.map((r) => time(r, 'utime', 'uTime')),
        p.map((r) => JSON.stringify(r)),
      ],
    );
    const t = truth.transfers;
    await c.query(
      `INSERT INTO broker_transfer (account_id, tx_id, type, sub_uid, coin, sub_type, amount, status, ts, raw)
       SELECT $1::uuid, * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::transfer_sub_type[],
         $7::numeric[], $8::transfer_status[], $9::timestamptz[], $10::jsonb[])`,
      [
        accountId,
        t.map((r) => r.txId),
        t.map((r) => r.type),
        t.map((r) => r.uid),
        t.map((r) => r.coin),
        t.map((r) => r.subType),
        t.map((r) => r.amount),
        t.map((r) => r.status),
        t.map((r) => msToIso(r.ts!)),
        t.map((r) => JSON.stringify(r)),
      ],
    );
    const f = truth.futuresLedger ?? [];
    await c.query(
      `INSERT INTO futures_ledger_record (account_id, product_type, record_id, symbol, margin_coin, future_tax_type,
         amount, fee, ts, raw)
       SELECT $1::uuid, * FROM unnest($2::product_type[], $3::text[], $4::text[], $5::text[], $6::text[],
         $7::numeric[], $8::numeric[], $9::timestamptz[], $10::jsonb[])`,
      [
        accountId,
        f.map((r) => r.productType),
        f.map((r) => r.id),
        f.map((r) => r.symbol ?? ''),
        f.map((r) => r.marginCoin),
        f.map((r) => r.futureTaxType),
        f.map((r) => r.amount),
        f.map((r) => r.fee),
        f.map((r) => msToIso(r.ts!)),
        f.map((r) => JSON.stringify(r)),
      ],
    );
    const m = truth.marginLedger ?? [];
    await c.query(
      `INSERT INTO margin_ledger_record (account_id, margin_type, record_id, coin, symbol, margin_tax_type,
         amount, fee, total, ts, raw)
       SELECT $1::uuid, * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::numeric[],
         $8::numeric[], $9::numeric[], $10::timestamptz[], $11::jsonb[])`,
      [
        accountId,
        m.map((r) => r.marginType),
        m.map((r) => r.id),
        m.map((r) => r.coin),
        m.map((r) => r.symbol ?? ''),
        m.map((r) => r.marginTaxType),
        m.map((r) => r.amount),
        m.map((r) => r.fee),
        m.map((r) => r.total),
        m.map((r) => msToIso(r.ts!)),
        m.map(({ marginType: _, ...raw }) => JSON.stringify(raw)),
      ],
    );
    const q = truth.p2pLedger ?? [];
    await c.query(
      `INSERT INTO p2p_ledger_record (account_id, record_id, coin, p2p_tax_type, total, ts, raw)
       SELECT $1::uuid, * FROM unnest($2::text[], $3::text[], $4::text[], $5::numeric[], $6::timestamptz[], $7::jsonb[])`,
      [
        accountId,
        q.map((r) => r.id),
        q.map((r) => r.coin),
        q.map((r) => r.p2pTaxType),
        q.map((r) => r.total),
        q.map((r) => msToIso(r.ts!)),
        q.map((r) => JSON.stringify(r)),
      ],
    );
  });
}

/** Marks [from, to) of the given streams as synced (done windows), as a finished backfill leaves them. */
export async function insertCoverage(
  url: string,
  accountId: string,
  from: string,
  to: string,
  // Every stream of the registry by default (a new wallet ledger too): what "synced for the period" means.
  streams: readonly Stream[] = STREAMS,
  // Only these scopes of the streams (all by default).
  onlyScopes?: readonly string[],
): Promise<void> {
  const scopes = (stream: Stream) =>
    streamDefinition(stream).scopes.filter((s) => onlyScopes === undefined || onlyScopes.includes(s));
  await withClient(url, async (c) => {
    for (const stream of streams) {
      for (const scope of scopes(stream)) {
        await c.query(
          `INSERT INTO sync_window (id, account_id, stream, scope, window_start, window_end, status, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, 'done', now())`,
          [randomUUID(), accountId, stream, scope, toDate(from), toDate(to)],
        );
      }
    }
  });
}
