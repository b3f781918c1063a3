import { Decimal } from 'decimal.js';

import { type Treatment, treatmentOf } from './treatments.ts';

/**
 * The four wallets' records as walk entries, written from docs/reports.md "Trades", "Two
 * wallets", "Margin and P2P" (nothing of src/): spot trade legs sharing an order id paired (equal
 * counts: fill by fill; one leg on a side: the order summed), a BGB `Transaction fee deduct` put on
 * its fee-less fill, the fee of a record bringing coins in an entry of its own, margin trades paired
 * by instant, futures transfers paired with their spot side.
 */
export interface Amount {
  readonly coin: string;
  readonly amount: Decimal;
}

export interface Entry {
  readonly ms: number;
  readonly sortId: string;
  readonly wallet: 'spot' | 'futures' | 'margin' | 'p2p';
  readonly ids: string;
  readonly type: string;
  readonly treatment: Treatment;
  /** A paired trade: sent (its own fee included when both sides carry one), received gross, fee. */
  readonly trade?: { sent: Amount; received: Amount; fee: Amount | null; third: Amount | null };
  readonly sent?: Amount;
  /** The sent record's own fee, in the sent coin. */
  readonly fee?: Decimal;
  readonly received?: Amount;
}

export interface SpotRow {
  record_id: string;
  coin: string;
  spot_tax_type: string;
  amount: string;
  fee: string;
  biz_order_id: string;
  ms: number;
}
export interface FuturesRow {
  record_id: string;
  margin_coin: string;
  future_tax_type: string;
  amount: string;
  fee: string;
  ms: number;
}
export interface MarginRow {
  record_id: string;
  margin_type: string;
  symbol: string;
  coin: string;
  margin_tax_type: string;
  amount: string;
  fee: string;
  ms: number;
}
export interface P2pRow {
  record_id: string;
  coin: string;
  p2p_tax_type: string;
  total: string;
  ms: number;
}

const TRADE_TYPES = new Set(['Buy', 'Sell', 'Buy Crypto', 'Sell Crypto', 'Exchange spending', 'Exchange income']);
const D = (s: string) => new Decimal(s);
const byId = (a: { record_id: string; ms: number }, b: { record_id: string; ms: number }) =>
  a.ms - b.ms || (a.record_id < b.record_id ? -1 : a.record_id > b.record_id ? 1 : 0);

/** A plain record: amount < 0 sent (its fee with it), > 0 received (its fee an entry of its own). */
function plain(
  wallet: Entry['wallet'],
  ledger: 'spot' | 'futures' | 'margin' | 'p2p',
  r: { record_id: string; ms: number },
  coin: string,
  type: string,
  amount: Decimal,
  fee: Decimal,
  treatment: Treatment = treatmentOf(ledger, type),
): Entry[] {
  // At one instant spot and futures records sort by their ids, margin and P2P ones by `margin:<id>`,
  // `p2p:<id>` (after the digits): ledgerline's tie order, which no rule fixes (FIFO within one instant).
  const sortId = wallet === 'margin' || wallet === 'p2p' ? `${wallet}:${r.record_id}` : r.record_id;
  const base = { ms: r.ms, sortId, wallet, ids: `${wallet}:${r.record_id}`, type, treatment };
  if (amount.lt(0)) return [{ ...base, sent: { coin, amount: amount.neg() }, fee: fee.neg() }];
  if (amount.isZero() && !fee.isZero()) return [{ ...base, sent: { coin, amount: fee.neg() }, fee: D('0') }];
  if (amount.isZero()) return [];
  const out: Entry[] = [{ ...base, received: { coin, amount } }];
  if (!fee.isZero())
    out.push({
      ...base,
      sortId: `${sortId}:fee`,
      ids: `${base.ids}:fee`,
      treatment: 'other-fee',
      sent: { coin, amount: fee.neg() },
      fee: D('0'),
    });
  return out;
}

interface Fill {
  legsGiven: SpotRow[];
  legsReceived: SpotRow[];
}

function fillEntry(order: string, f: Fill, third: SpotRow | undefined): Entry {
  const all = [...f.legsGiven, ...f.legsReceived];
  const ms = Math.min(...all.map((l) => l.ms));
  const sum = (legs: SpotRow[], k: 'amount' | 'fee') => legs.reduce((s, l) => s.plus(D(l[k]).abs()), D('0'));
  const given = sum(f.legsGiven, 'amount');
  const received = sum(f.legsReceived, 'amount');
  const gFee = f.legsGiven.some((l) => !D(l.fee).isZero()) ? sum(f.legsGiven, 'fee') : null;
  const rFee = f.legsReceived.some((l) => !D(l.fee).isZero()) ? sum(f.legsReceived, 'fee') : null;
  const sentCoin = f.legsGiven[0]!.coin;
  const receivedCoin = f.legsReceived[0]!.coin;
  const fee =
    rFee !== null ? { coin: receivedCoin, amount: rFee } : gFee !== null ? { coin: sentCoin, amount: gFee } : null;
  return {
    ms,
    sortId: all.map((l) => l.record_id).sort()[0]!,
    wallet: 'spot',
    ids: `order:${order}`,
    type: 'trade',
    treatment: 'trade-leg',
    trade: {
      sent: { coin: sentCoin, amount: gFee !== null && rFee !== null ? given.plus(gFee) : given },
      received: { coin: receivedCoin, amount: received },
      fee,
      third: third ? { coin: third.coin, amount: D(third.amount).neg() } : null,
    },
  };
}

export function spotEntries(rows: readonly SpotRow[]): Entry[] {
  const out: Entry[] = [];
  const orders = new Map<string, SpotRow[]>();
  for (const r of rows)
    if (TRADE_TYPES.has(r.spot_tax_type) && r.biz_order_id !== '') {
      const legs = orders.get(r.biz_order_id) ?? [];
      legs.push(r);
      orders.set(r.biz_order_id, legs);
    }
  const paired = new Set<string>();
  const fills: { order: string; fill: Fill }[] = [];
  for (const [order, legs] of orders) {
    const given = legs.filter((l) => D(l.amount).lt(0)).sort(byId);
    const received = legs.filter((l) => D(l.amount).gt(0)).sort(byId);
    const oneCoin = (ls: SpotRow[]) => ls.length > 0 && ls.every((l) => l.coin === ls[0]!.coin);
    const ok =
      oneCoin(given) &&
      oneCoin(received) &&
      given[0]!.coin !== received[0]!.coin &&
      given.length + received.length === legs.length &&
      (given.length === received.length || given.length === 1 || received.length === 1);
    if (!ok) continue;
    for (const l of legs) paired.add(l.record_id);
    if (given.length === received.length)
      given.forEach((g, k) => fills.push({ order, fill: { legsGiven: [g], legsReceived: [received[k]!] } }));
    else fills.push({ order, fill: { legsGiven: given, legsReceived: received } });
  }
  // Third-coin fees: the k-th deduct of an (order, ts) with the k-th fee-less fill of that (order, ts).
  const deducts = new Map<string, SpotRow[]>();
  for (const r of rows)
    if (
      r.spot_tax_type === 'Transaction fee deduct' &&
      D(r.amount).lt(0) &&
      D(r.fee).isZero() &&
      orders.has(r.biz_order_id)
    ) {
      const key = `${r.biz_order_id}@${r.ms}`;
      deducts.set(key, [...(deducts.get(key) ?? []), r]);
    }
  const feeless = new Map<string, { order: string; fill: Fill }[]>();
  for (const f of fills) {
    const legs = [...f.fill.legsGiven, ...f.fill.legsReceived];
    if (legs.some((l) => !D(l.fee).isZero())) continue;
    const key = `${f.order}@${Math.min(...legs.map((l) => l.ms))}`;
    feeless.set(key, [...(feeless.get(key) ?? []), f]);
  }
  const attached = new Map<{ order: string; fill: Fill }, SpotRow>();
  for (const [key, list] of feeless) {
    const ds = (deducts.get(key) ?? []).sort(byId);
    const sorted = list.sort((a, b) => (minId(a.fill) < minId(b.fill) ? -1 : 1));
    sorted.forEach((f, k) => {
      const d = ds[k];
      if (d && d.coin !== f.fill.legsGiven[0]!.coin && d.coin !== f.fill.legsReceived[0]!.coin) attached.set(f, d);
    });
  }
  const attachedIds = new Set([...attached.values()].map((d) => d.record_id));
  for (const f of fills) out.push(fillEntry(f.order, f.fill, attached.get(f)));
  for (const r of rows) {
    if (paired.has(r.record_id) || attachedIds.has(r.record_id)) continue;
    out.push(...plain('spot', 'spot', r, r.coin, r.spot_tax_type, D(r.amount), D(r.fee)));
  }
  return out;
}

function minId(f: Fill): string {
  return [...f.legsGiven, ...f.legsReceived].map((l) => l.record_id).sort()[0]!;
}

/** Futures records; a transfer without its spot side (same coin, instant, opposite change) is a deposit / withdrawal. */
export function futuresEntries(rows: readonly FuturesRow[], spot: readonly SpotRow[]): Entry[] {
  const spotMoves = new Map<string, number>();
  for (const s of spot)
    if (s.spot_tax_type === 'Transfer in' || s.spot_tax_type === 'Transfer out') {
      const key = `${s.coin}@${s.ms}@${D(s.amount).plus(D(s.fee)).neg().toFixed()}`;
      spotMoves.set(key, (spotMoves.get(key) ?? 0) + 1);
    }
  const out: Entry[] = [];
  for (const r of [...rows].sort(byId)) {
    const amount = D(r.amount);
    let treatment = treatmentOf('futures', r.future_tax_type);
    if (r.future_tax_type === 'TRANSFER_IN' || r.future_tax_type === 'TRANSFER_OUT') {
      const key = `${r.margin_coin}@${r.ms}@${amount.plus(D(r.fee)).toFixed()}`;
      const left = spotMoves.get(key) ?? 0;
      if (left > 0) spotMoves.set(key, left - 1);
      else treatment = r.future_tax_type === 'TRANSFER_IN' ? 'deposit' : 'withdrawal';
    }
    out.push(...plain('futures', 'futures', r, r.margin_coin, r.future_tax_type, amount, D(r.fee), treatment));
  }
  return out;
}

/** Margin records; deal_out + deal_in (exchange_out + exchange_in) of one account at one instant: a trade. */
export function marginEntries(rows: readonly MarginRow[]): Entry[] {
  const out: Entry[] = [];
  const groups = new Map<string, MarginRow[]>();
  for (const r of rows) {
    const family = /^(deal|exchange)_(in|out)$/.exec(r.margin_tax_type)?.[1];
    if (family === undefined) {
      out.push(...plain('margin', 'margin', r, r.coin, r.margin_tax_type, D(r.amount), D(r.fee)));
      continue;
    }
    const key = `${r.margin_type}|${r.symbol}|${r.ms}|${family}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  for (const legs of groups.values()) {
    const given = legs.filter((l) => D(l.amount).lt(0)).sort(byId);
    const received = legs.filter((l) => D(l.amount).gt(0)).sort(byId);
    const used = new Set<MarginRow>();
    given.forEach((g, k) => {
      const r = received.filter((x) => x.coin !== g.coin)[k];
      if (!r) return;
      used.add(g).add(r);
      const gFee = D(g.fee).neg();
      const rFee = D(r.fee).neg();
      out.push({
        ms: g.ms,
        sortId: `margin:${g.record_id}`,
        wallet: 'margin',
        ids: `margin:${g.record_id}+margin:${r.record_id}`,
        type: 'trade',
        treatment: 'trade-leg',
        trade: {
          sent: {
            coin: g.coin,
            amount: D(g.amount)
              .neg()
              .plus(rFee.isZero() ? 0 : gFee),
          },
          received: { coin: r.coin, amount: D(r.amount) },
          fee: !rFee.isZero() ? { coin: r.coin, amount: rFee } : !gFee.isZero() ? { coin: g.coin, amount: gFee } : null,
          third: null,
        },
      });
    });
    for (const l of legs)
      if (!used.has(l)) out.push(...plain('margin', 'margin', l, l.coin, l.margin_tax_type, D(l.amount), D(l.fee)));
  }
  return out;
}

/** P2P records: `total` unsigned, the type says the way. */
export function p2pEntries(rows: readonly P2pRow[]): Entry[] {
  return rows.flatMap((r) => {
    const out = r.p2p_tax_type === 'sell' || r.p2p_tax_type === 'transfer_out';
    return plain('p2p', 'p2p', r, r.coin, r.p2p_tax_type, out ? D(r.total).neg() : D(r.total), D('0'));
  });
}

/** Time order, then the smallest record id, then the wallet (docs: "Dated by its earliest leg"). */
export function inOrder(entries: Entry[]): Entry[] {
  return entries.sort(
    (a, b) =>
      a.ms - b.ms ||
      (a.sortId < b.sortId ? -1 : a.sortId > b.sortId ? 1 : 0) ||
      (a.wallet < b.wallet ? -1 : a.wallet > b.wallet ? 1 : 0),
  );
}
