import { randomUUID } from 'node:crypto';
import pg from 'pg';

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
