import { Decimal } from 'decimal.js';

import type { Entry } from './entries.ts';
import { type IndependentPrices, money } from './prices.ts';
import { holdsAway } from './treatments.ts';

/** Where the walk's acquisitions and disposals go: the UK matcher or the German FIFO queue. */
export interface Sink {
  /** cost null: unknown (a deposit nobody priced) or unpriced. */
  acquire(coin: string, quantity: Decimal, cost: Decimal | null, ms: number, acquiredMs?: number): void;
  /** proceeds net of the incidental costs (fees paying for the disposal), both null when unknown. */
  dispose(coin: string, quantity: Decimal, proceeds: Decimal | null, incidental: Decimal, ms: number): void;
  /** Coins leave without a disposal. */
  withdraw(coin: string, quantity: Decimal, ms: number): void;
}

/** A supplied lot (cost-basis import) in the walk's currency. */
export interface SuppliedLot {
  coin: string;
  quantity: Decimal;
  acquiredMs: number;
  cost: Decimal;
}

const ZERO = new Decimal(0);

/**
 * docs/reports.md "Treatments", as written: a trade disposes of the coin given and acquires the
 * coin received at one value (the received coin's net market value, else the sent coin's), a fee in
 * the received coin charged to the disposal (uk: half to each side, CRYPTO22150), a fee in the sent
 * coin disposed of with the trade, a third coin's fee disposed of at market value and allowed on
 * the trade; other fees disposals at market value; income and market entries at market value; a
 * rebate at cost 0; a deposit from the supplied lots or of unknown cost; a withdrawal leaves; own
 * moves keep the lots (a spot own move coming back beyond what went away: a deposit); a P2P sell at
 * the supplied proceeds or unknown; a futures loss with its fee disposed of at market value.
 */
export function walk(
  entries: readonly Entry[],
  prices: IndependentPrices,
  currency: string,
  sink: Sink,
  supplied: { lots: SuppliedLot[]; proceeds: Map<string, Decimal> },
  uk: boolean,
  /** Told of every quantity that comes in with no cost anyone supplied (a deposit's, unknown). */
  unknown?: (coin: string, quantity: Decimal, ms: number, entry: Entry) => void,
): void {
  let current = entries[0]!;
  const lots = supplied.lots.map((l) => ({ ...l })).sort((a, b) => a.acquiredMs - b.acquiredMs);
  const away = new Map<string, Decimal>();
  const value = (coin: string, q: Decimal, ms: number) => prices.value(coin, q, currency, ms);
  const deposit = (coin: string, quantity: Decimal, ms: number) => {
    let left = quantity;
    for (const lot of lots) {
      if (left.isZero() || lot.acquiredMs > ms) break;
      if (lot.coin !== coin || lot.quantity.isZero()) continue;
      const q = Decimal.min(lot.quantity, left);
      const cost = q.eq(lot.quantity) ? lot.cost : money(lot.cost.times(q).div(lot.quantity));
      sink.acquire(coin, q, cost, ms, lot.acquiredMs);
      lot.quantity = lot.quantity.minus(q);
      lot.cost = lot.cost.minus(cost);
      left = left.minus(q);
    }
    if (left.gt(0)) {
      unknown?.(coin, left, ms, current);
      sink.acquire(coin, left, null, ms);
    }
  };
  for (const e of entries) {
    current = e;
    if (e.trade) {
      walkTrade(e, value, currency, sink, uk);
      continue;
    }
    const t = e.treatment;
    const spotAway = e.wallet === 'spot' && t === 'own-move' && holdsAway(e.type);
    if (e.received) {
      const { coin, amount } = e.received;
      if (t === 'deposit') deposit(coin, amount, e.ms);
      else if (t === 'rebate') sink.acquire(coin, amount, ZERO, e.ms);
      else if (spotAway) {
        const held = away.get(coin) ?? ZERO;
        const back = Decimal.min(held, amount);
        away.set(coin, held.minus(back));
        if (amount.gt(back)) deposit(coin, amount.minus(back), e.ms);
      } else if (t !== 'own-move') sink.acquire(coin, amount, value(coin, amount, e.ms), e.ms);
    }
    if (!e.sent) continue;
    const { coin, amount } = e.sent;
    const fee = e.fee ?? ZERO;
    const total = amount.plus(fee);
    if (spotAway) away.set(coin, (away.get(coin) ?? ZERO).plus(amount));
    if (t === 'other-fee' || t === 'trade-fee' || t === 'income') {
      sink.dispose(coin, total, value(coin, total, e.ms), ZERO, e.ms);
    } else if (t === 'own-move' || t === 'withdrawal') {
      if (t === 'withdrawal') sink.withdraw(coin, amount, e.ms);
      if (fee.gt(0)) sink.dispose(coin, fee, value(coin, fee, e.ms), ZERO, e.ms);
    } else if (t === 'unknown-proceeds') {
      const p = supplied.proceeds.get(e.ids) ?? null;
      const incidental = p === null || fee.isZero() ? ZERO : money(p.times(fee).div(amount));
      sink.dispose(coin, total, p, incidental, e.ms);
    } else if (e.wallet === 'futures') {
      sink.dispose(coin, total, value(coin, total, e.ms), ZERO, e.ms);
    } else {
      const v = value(coin, amount, e.ms);
      const incidental = v === null || fee.isZero() ? ZERO : money(v.times(fee).div(amount));
      sink.dispose(coin, total, v, incidental, e.ms);
    }
  }
}

function walkTrade(
  e: Entry,
  value: (coin: string, q: Decimal, ms: number) => Decimal | null,
  currency: string,
  sink: Sink,
  uk: boolean,
): void {
  const { sent: s, received: r, fee, third } = e.trade!;
  const feeInSent = fee !== null && fee.coin === s.coin ? fee.amount : ZERO;
  const feeInReceived = fee !== null && fee.coin === r.coin ? fee.amount : ZERO;
  const sent = s.amount.plus(feeInSent);
  const received = r.amount.minus(feeInReceived);
  let v: Decimal | null;
  let incidental = ZERO;
  let fromSent = false;
  if (s.coin === currency) v = money(sent);
  else if (r.coin === currency) {
    v = money(received);
    incidental = money(feeInReceived);
  } else {
    const net = value(r.coin, received, e.ms);
    if (net !== null) {
      v = net;
      if (feeInReceived.gt(0)) {
        const f = value(r.coin, feeInReceived, e.ms);
        if (uk) {
          const half = f === null ? null : money(f.div(2));
          v = half === null ? null : money(v.plus(half));
          incidental = half === null ? ZERO : f!.minus(half);
        } else if (received.gt(0)) incidental = money(net.times(feeInReceived).div(received));
      }
    } else {
      v = value(s.coin, sent, e.ms);
      fromSent = true;
      if (v !== null && feeInReceived.gt(0)) {
        const share = v.times(feeInReceived).div(r.amount);
        const charged = money(uk ? share.div(2) : share);
        v = v.minus(charged);
        incidental = charged;
      }
    }
  }
  if (feeInSent.gt(0) && !fromSent && v !== null && s.coin !== currency && s.amount.gt(0))
    incidental = money(v.times(feeInSent).div(s.amount));
  let proceeds = v;
  let cost = v;
  if (third !== null && third.amount.gt(0)) {
    const f = value(third.coin, third.amount, e.ms);
    sink.dispose(third.coin, third.amount, f, ZERO, e.ms);
    if (f === null) proceeds = cost = null;
    else {
      const toAcq = s.coin === currency ? f : r.coin === currency ? ZERO : uk ? money(f.div(2)) : ZERO;
      const toDisp = f.minus(toAcq);
      if (proceeds !== null) proceeds = proceeds.minus(toDisp);
      if (cost !== null) cost = cost.plus(toAcq);
      incidental = incidental.plus(toDisp);
    }
  }
  sink.dispose(s.coin, sent, proceeds, proceeds === null ? ZERO : incidental, e.ms);
  if (received.gt(0)) sink.acquire(r.coin, received, cost, e.ms);
}
