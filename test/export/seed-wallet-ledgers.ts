import { withClient } from './seed.ts';

/** Margin and P2P ledger rows written straight into their tables, as ingestion would store them. */

export interface MarginLedgerRow {
  recordId: string;
  marginType?: string;
  coin: string;
  symbol?: string;
  marginTaxType: string;
  amount: string;
  fee?: string;
  total?: string;
  ts: number;
  unmapped?: string[];
}

export interface P2pLedgerRow {
  recordId: string;
  coin: string;
  p2pTaxType: string;
  total: string;
  ts: number;
  unmapped?: string[];
}

export async function insertMarginLedger(url: string, accountId: string, rows: MarginLedgerRow[]): Promise<void> {
  await withClient(url, async (c) => {
    for (const r of rows) {
      const raw = {
        id: r.recordId,
        coin: r.coin,
        symbol: r.symbol ?? '',
        marginTaxType: r.marginTaxType,
        amount: r.amount,
        fee: r.fee ?? '0',
        total: r.total ?? '0',
        ts: String(r.ts),
      };
      await c.query(
        `INSERT INTO margin_ledger_record (account_id, margin_type, record_id, coin, symbol, margin_tax_type,
                                           amount, fee, total, ts, raw, unmapped)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
        [
          accountId,
          r.marginType ?? 'crossed',
          r.recordId,
          r.coin,
          r.symbol ?? '',
          r.marginTaxType,
          r.amount,
          r.fee ?? '0',
          r.total ?? '0',
          new Date(r.ts).toISOString(),
          raw,
          r.unmapped ?? [],
        ],
      );
    }
  });
}

export async function insertP2pLedger(url: string, accountId: string, rows: P2pLedgerRow[]): Promise<void> {
  await withClient(url, async (c) => {
    for (const r of rows) {
      const raw = { id: r.recordId, coin: r.coin, p2pTaxType: r.p2pTaxType, total: r.total, ts: String(r.ts) };
      await c.query(
        `INSERT INTO p2p_ledger_record (account_id, record_id, coin, p2p_tax_type, total, ts, raw, unmapped)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [accountId, r.recordId, r.coin, r.p2pTaxType, r.total, new Date(r.ts).toISOString(), raw, r.unmapped ?? []],
      );
    }
  });
}
