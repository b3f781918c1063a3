import { ORDER_CATEGORIES, type OrderCategory, symbolsOf } from '../data/markets.ts';
import { Rng } from '../prng.ts';

export interface OpenOrder {
  orderId: string;
  clientOid: string;
  /** The account the order belongs to. */
  uid: string;
  category: OrderCategory;
  symbol: string;
  status: 'live' | 'partially_filled';
  /** Set on orders the cancel endpoints must report as not cancellable (24056 notExisted). */
  stuck: boolean;
}

export interface NewOrder {
  uid: string;
  category: OrderCategory;
  symbol: string;
  orderId?: string;
  clientOid?: string;
  status?: OpenOrder['status'];
  stuck?: boolean;
}

/** Open (new or partially filled) orders of every account; cancelled orders leave the book. */
export class OrderBook {
  readonly #orders = new Map<string, OpenOrder>();
  readonly #rng: Rng;
  #nextId = 1_180_000_000_000_000_000n;

  constructor(seed: number) {
    this.#rng = new Rng(seed, 'orders');
  }

  place(spec: NewOrder): OpenOrder {
    const orderId = spec.orderId ?? this.#newOrderId();
    if (this.#orders.has(orderId)) throw new RangeError(`orderId ${orderId} is already open`);
    const order: OpenOrder = {
      orderId,
      clientOid: spec.clientOid ?? `sim-${this.#rng.hex(16)}`,
      uid: spec.uid,
      category: spec.category,
      symbol: spec.symbol,
      status: spec.status ?? 'live',
      stuck: spec.stuck ?? false,
    };
    this.#orders.set(orderId, order);
    return order;
  }

  /** A few open orders in every category, for a fresh demo account. */
  seedAccount(uid: string): void {
    for (const category of ORDER_CATEGORIES) {
      const symbols = symbolsOf(category).slice(0, 2);
      for (let k = 0; k < 4; k++) {
        this.place({
          uid,
          category,
          symbol: symbols[Math.floor(k / 2) % symbols.length]!,
          status: k % 2 ? 'partially_filled' : 'live',
        });
      }
    }
  }

  openOf(uid: string, category?: OrderCategory, symbol?: string): OpenOrder[] {
    return [...this.#orders.values()].filter(
      (order) =>
        order.uid === uid &&
        (category === undefined || order.category === category) &&
        (symbol === undefined || order.symbol === symbol),
    );
  }

  byOrderId(uid: string, orderId: string): OpenOrder | undefined {
    const order = this.#orders.get(orderId);
    return order && order.uid === uid ? order : undefined;
  }

  byClientOid(uid: string, clientOid: string): OpenOrder | undefined {
    for (const order of this.#orders.values()) if (order.uid === uid && order.clientOid === clientOid) return order;
    return undefined;
  }

  remove(orderId: string): void {
    this.#orders.delete(orderId);
  }

  #newOrderId(): string {
    this.#nextId += BigInt(this.#rng.int(1, 999));
    return this.#nextId.toString();
  }
}
