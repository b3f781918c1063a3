import { formatFixed } from './fixed.ts';
import type { FuturesColumns } from './futures-generator.ts';
import { FUTURE_TAX_TYPES } from './futures-tax-types.ts';
import { FUTURES_WALLETS } from './futures-wallets.ts';
import { FUTURES_MARKETS, type ProductType } from './markets.ts';
import { lowerBound, lowerBoundVia } from './time.ts';

export interface FuturesRecord {
  id: string;
  symbol: string;
  marginCoin: string;
  futureTaxType: string;
  amount: string;
  fee: string;
  ts: string;
}

export interface FuturesQuery {
  productType: ProductType;
  /** Undefined = every margin coin of the product type. */
  marginCoin?: string;
  startTime: number;
  endTime: number;
  idLessThan?: number;
  limit: number;
  now: number;
}

/** A futures wallet's balance: what its records visible at some instant sum to. */
export interface FuturesBalance {
  productType: ProductType;
  marginCoin: string;
  /** Sum of amount + fee of every visible record, exact. */
  balance: string;
  records: number;
}

/** Sorted columns plus one position index per product type and per wallet. */
export class FuturesStore {
  readonly #c: FuturesColumns;
  readonly #byProduct = new Map<string, Uint32Array>();
  readonly #byWallet: Uint32Array[];

  constructor(columns: FuturesColumns) {
    this.#c = columns;
    const wallets = FUTURES_WALLETS.map(() => [] as number[]);
    for (let i = 0; i < columns.ids.length; i++) wallets[columns.wallet[i]!]!.push(i);
    this.#byWallet = wallets.map((list) => Uint32Array.from(list));
    for (const productType of new Set(FUTURES_WALLETS.map((w) => w.productType))) {
      const list: number[] = [];
      for (let i = 0; i < columns.ids.length; i++) {
        if (FUTURES_WALLETS[columns.wallet[i]!]!.productType === productType) list.push(i);
      }
      this.#byProduct.set(productType, Uint32Array.from(list));
    }
  }

  get size(): number {
    return this.#c.ids.length;
  }

  /** Positions of the matching records, newest first. */
  query(q: FuturesQuery): number[] {
    const index = this.#indexOf(q.productType, q.marginCoin);
    if (!index) return [];
    const last = Math.min(q.endTime, q.now);
    if (last < q.startTime) return [];
    let below = (last + 1) * 1000;
    if (q.idLessThan !== undefined && q.idLessThan < below) below = q.idLessThan;
    const ids = this.#c.ids;
    const hi = lowerBoundVia(index, ids, below);
    const lo = Math.max(lowerBoundVia(index, ids, q.startTime * 1000), hi - q.limit);
    const out: number[] = [];
    for (let k = hi - 1; k >= lo; k--) out.push(index[k]!);
    return out;
  }

  #indexOf(productType: ProductType, marginCoin: string | undefined): Uint32Array | undefined {
    if (marginCoin === undefined) return this.#byProduct.get(productType);
    const w = FUTURES_WALLETS.findIndex((x) => x.productType === productType && x.marginCoin === marginCoin);
    return w < 0 ? undefined : this.#byWallet[w];
  }

  /** Every record visible at `now`, newest first. */
  visible(now: number): number[] {
    const hi = lowerBound(this.#c.ids, (now + 1) * 1000);
    const out = new Array<number>(hi);
    for (let i = 0; i < hi; i++) out[i] = hi - 1 - i;
    return out;
  }

  /** Each wallet's balance at `now` (the sum of its visible records). */
  balances(now: number): FuturesBalance[] {
    const c = this.#c;
    const hi = lowerBound(c.ids, (now + 1) * 1000);
    const sums = FUTURES_WALLETS.map(() => 0);
    const counts = FUTURES_WALLETS.map(() => 0);
    for (let i = 0; i < hi; i++) {
      sums[c.wallet[i]!] = sums[c.wallet[i]!]! + c.amount[i]! + c.fee[i]!;
      counts[c.wallet[i]!]!++;
    }
    return FUTURES_WALLETS.map((w, k) => ({ ...w, balance: formatFixed(sums[k]!), records: counts[k]! }));
  }

  record(i: number): FuturesRecord {
    const c = this.#c;
    const id = c.ids[i]!;
    const market = c.market[i]!;
    return {
      id: String(id),
      symbol: market < 0 ? '' : FUTURES_MARKETS[market]!.symbol,
      marginCoin: FUTURES_WALLETS[c.wallet[i]!]!.marginCoin,
      futureTaxType: FUTURE_TAX_TYPES[c.type[i]!]!,
      amount: formatFixed(c.amount[i]!),
      fee: formatFixed(c.fee[i]!),
      ts: String(Math.floor(id / 1000)),
    };
  }
}
