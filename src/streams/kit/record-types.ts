/**
 * The shapes ingestion stores, as the exchange client yields them: every
 * value an exact string (amounts, ids, Unix-ms times), listed-value fields
 * as plain strings (an unlisted value must reach the table to be flagged),
 * and `raw`, the item exactly as the exchange sent it.
 */
export interface PositionRecord {
  positionId: string;
  symbol: string;
  marginCoin: string;
  holdSide: string;
  posMode: string;
  marginMode: string;
  openAvgPrice: string;
  closeAvgPrice: string;
  openTotalPos: string;
  closeTotalPos: string;
  pnl: string;
  netProfit: string;
  totalFunding: string;
  openFee: string;
  closeFee: string;
  cTime: string;
  uTime: string;
  raw: Record<string, unknown>;
}

export interface SpotLedgerRecord {
  id: string;
  coin: string;
  spotTaxType: string;
  amount: string;
  fee: string;
  balance: string;
  bizOrderId: string;
  ts: string;
  raw: Record<string, unknown>;
}

export interface TransferRecord {
  uid: string;
  txId: string;
  coin: string;
  type: string;
  subType: string;
  amount: string;
  status: string;
  ts: string;
  raw: Record<string, unknown>;
}
