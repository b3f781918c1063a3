import { FUTURES_MARKETS, type ProductType } from './markets.ts';
import type { PositionRow } from './position-generator.ts';
import { lowerBoundVia } from './time.ts';

export type TimestampSpelling = 'lower' | 'camel';

export interface PositionQuery {
  /** A symbol filter wins over productType, as the spec says. */
  symbol?: string;
  productType: ProductType;
  startTime: number;
  endTime: number;
  idLessThan?: number;
  limit: number;
  now: number;
}

export type PositionRecord = Record<string, string>;

/** Positions sorted by (utime, id), with one position index per symbol and per product type. */
export class PositionStore {
  readonly #rows: PositionRow[];
  readonly #ids: Float64Array;
  readonly #bySymbol = new Map<string, Uint32Array>();
  readonly #byProduct = new Map<string, Uint32Array>();

  constructor(rows: PositionRow[]) {
    this.#rows = rows;
    this.#ids = Float64Array.from(rows, (row) => row.id);
    const symbols = new Map<string, number[]>();
    const products = new Map<string, number[]>();
    rows.forEach((row, i) => {
      const market = FUTURES_MARKETS[row.market]!;
      push(symbols, market.symbol, i);
      push(products, market.productType, i);
    });
    for (const [key, list] of symbols) this.#bySymbol.set(key, Uint32Array.from(list));
    for (const [key, list] of products) this.#byProduct.set(key, Uint32Array.from(list));
  }

  get size(): number {
    return this.#rows.length;
  }

  query(q: PositionQuery): number[] {
    const index = q.symbol !== undefined ? this.#bySymbol.get(q.symbol) : this.#byProduct.get(q.productType);
    if (!index) return [];
    const last = Math.min(q.endTime, q.now);
    if (last < q.startTime) return [];
    let below = (last + 1) * 1000;
    if (q.idLessThan !== undefined && q.idLessThan < below) below = q.idLessThan;
    const hi = lowerBoundVia(index, this.#ids, below);
    const lo = Math.max(lowerBoundVia(index, this.#ids, q.startTime * 1000), hi - q.limit);
    const out: number[] = [];
    for (let k = hi - 1; k >= lo; k--) out.push(index[k]!);
    return out;
  }

  /** Every position visible at `now`, newest first. */
  visible(now: number): number[] {
    const out: number[] = [];
    for (let i = this.#rows.length - 1; i >= 0; i--) if (this.#rows[i]!.utime <= now) out.push(i);
    return out;
  }

  record(i: number, spelling: TimestampSpelling): PositionRecord {
    const row = this.#rows[i]!;
    const market = FUTURES_MARKETS[row.market]!;
    return {
      positionId: String(row.id),
      symbol: market.symbol,
      marginCoin: market.marginCoin,
      holdSide: row.holdSide,
      posMode: row.posMode,
      openAvgPrice: row.openAvgPrice,
      closeAvgPrice: row.closeAvgPrice,
      marginMode: row.marginMode,
      openTotalPos: row.openTotalPos,
      closeTotalPos: row.closeTotalPos,
      pnl: row.pnl,
      netProfit: row.netProfit,
      totalFunding: row.totalFunding,
      openFee: row.openFee,
      closeFee: row.closeFee,
      [spelling === 'lower' ? 'ctime' : 'cTime']: String(row.ctime),
      [spelling === 'lower' ? 'utime' : 'uTime']: String(row.utime),
    };
  }
}

function push(map: Map<string, number[]>, key: string, value: number): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
