import { Rng } from '../prng.ts';
import { SPOT_COINS } from './coins.ts';
import { FIXED_DECIMALS } from './fixed.ts';
import { type FutureTaxType, futureTaxTypeIndex } from './futures-tax-types.ts';
import { FUTURES_WALLETS, walletIndex, walletOfSpotCoin } from './futures-wallets.ts';
import { FUTURES_MARKETS } from './markets.ts';
import type { PositionRow } from './position-generator.ts';
import type { SpotColumns } from './spot-generator.ts';
import { SPOT_TAX_TYPES } from './spot-tax-types.ts';
import { DAY, HOUR } from './time.ts';
import { transferSide } from './wallet-sides.ts';

/** Futures finance records as columns, sorted ascending by id. Amounts in 1e-8 units. */
export interface FuturesColumns {
  /** id = ts * 1000 + sequence within the ts: ascending ids are ascending (ts, sequence). */
  ids: Float64Array;
  /** Index into FUTURES_WALLETS. */
  wallet: Uint8Array;
  /** Index into FUTURE_TAX_TYPES. */
  type: Uint8Array;
  /** Index into FUTURES_MARKETS; -1 for a record of no symbol (a transfer). */
  market: Int8Array;
  amount: Float64Array;
  fee: Float64Array;
}

interface Draft {
  ts: number;
  wallet: number;
  type: FutureTaxType;
  market: number;
  amount: number;
  fee: number;
}

const YEAR = 365 * DAY;
/** Funding is settled at 00:00, 08:00 and 16:00 UTC. */
export const FUNDING_INTERVAL = 8 * HOUR;
const ID_FACTOR = 1000;

const SPOT_TRANSFER_IN = SPOT_TAX_TYPES.indexOf('Transfer in');
const SPOT_TRANSFER_OUT = SPOT_TAX_TYPES.indexOf('Transfer out');

/**
 * Every futures wallet's finance records, consistent with the spot records and the positions the
 * same account serves (src/simulator/README.md, "Futures ledger"):
 * - each spot `Transfer out` to futures (most of them: wallet-sides.ts) is a TRANSFER_IN of the same coin and amount at the same
 *   ts, each spot `Transfer in` (from futures) a TRANSFER_OUT;
 * - each closed position is an OPEN_* record at its ctime (fee = its openFee), a funding
 *   settlement at every 8-hour instant while it was open (its totalFunding split exactly; one at
 *   its close when it never crossed one), and its close at its utime (amount = pnl, fee =
 *   closeFee): CLOSE_*, or BURST_CLOSE_* / FORCE_CLOSE_* for a liquidated losing one. They sum to
 *   its netProfit to the last digit;
 * - each wallet opens with one TRANSFER_IN at the first instant of the year (the balance brought
 *   forward, before any spot record), sized so that its balance never goes below zero.
 * A record moves its wallet's balance by amount + fee.
 */
export function generateFuturesLedger(
  seed: number,
  spot: SpotColumns,
  positions: readonly PositionRow[],
  anchor: number,
): FuturesColumns {
  const rng = new Rng(seed, 'futures-ledger');
  const drafts: Draft[] = [];
  for (let i = 0; i < spot.ids.length; i++) {
    const type = spot.type[i]!;
    if (type !== SPOT_TRANSFER_IN && type !== SPOT_TRANSFER_OUT) continue;
    // Some spot transfers go to the margin accounts or the P2P wallet instead (wallet-sides.ts).
    if (transferSide(spot.ids[i]!, spot.coin[i]!) !== 'futures') continue;
    drafts.push({
      ts: Math.floor(spot.ids[i]! / ID_FACTOR),
      wallet: walletOfSpotCoin(SPOT_COINS[spot.coin[i]!]!.coin),
      type: type === SPOT_TRANSFER_OUT ? 'TRANSFER_IN' : 'TRANSFER_OUT',
      market: -1,
      amount: -spot.amount[i]!,
      fee: 0,
    });
  }
  for (const position of positions) positionDrafts(rng, position, drafts);
  // Stable: records of one ts keep the order they were drafted in (a position's funding before its close).
  drafts.sort((a, b) => a.ts - b.ts);
  prependOpenings(drafts, anchor - YEAR);
  return toColumns(drafts);
}

function positionDrafts(rng: Rng, position: PositionRow, out: Draft[]): void {
  const market = FUTURES_MARKETS[position.market]!;
  const wallet = walletIndex(market.productType, market.marginCoin);
  const side = position.holdSide === 'long' ? 'LONG' : 'SHORT';
  out.push({
    ts: position.ctime,
    wallet,
    type: `OPEN_${side}`,
    market: position.market,
    amount: 0,
    fee: units(position.openFee),
  });
  const instants: number[] = [];
  for (let t = (Math.floor(position.ctime / FUNDING_INTERVAL) + 1) * FUNDING_INTERVAL; t < position.utime;) {
    instants.push(t);
    t += FUNDING_INTERVAL;
  }
  if (instants.length === 0) instants.push(position.utime);
  const funding = units(position.totalFunding);
  const parts = splitExactly(funding, instants.length);
  instants.forEach((ts, k) => {
    if (parts[k] === 0) return;
    out.push({
      ts,
      wallet,
      type: parts[k]! > 0 ? 'CONTRACT_MAIN_SETTLE_FEE_USER_IN' : 'CONTRACT_MAIN_SETTLE_FEE_USER_OUT',
      market: position.market,
      amount: parts[k]!,
      fee: 0,
    });
  });
  const pnl = units(position.pnl);
  const liquidation = pnl < 0 ? rng.next() : 1;
  const close = liquidation < 0.04 ? 'BURST_CLOSE' : liquidation < 0.06 ? 'FORCE_CLOSE' : 'CLOSE';
  out.push({
    ts: position.utime,
    wallet,
    type: `${close}_${side}`,
    market: position.market,
    amount: pnl,
    fee: units(position.closeFee),
  });
}

/** `total` (integer units) in `n` integer parts of the same sign, summing to it exactly. */
function splitExactly(total: number, n: number): number[] {
  const sign = total < 0 ? -1 : 1;
  const abs = Math.abs(total);
  const base = Math.floor(abs / n);
  const rest = abs - base * n;
  return Array.from({ length: n }, (_, k) => sign * (base + (k < rest ? 1 : 0)));
}

/** One opening TRANSFER_IN per wallet at `at`: what its lowest running balance needs, plus a cushion. */
function prependOpenings(drafts: Draft[], at: number): void {
  const balance = new Array<number>(FUTURES_WALLETS.length).fill(0);
  const lowest = new Array<number>(FUTURES_WALLETS.length).fill(0);
  for (const draft of drafts) {
    balance[draft.wallet] = balance[draft.wallet]! + draft.amount + draft.fee;
    lowest[draft.wallet] = Math.min(lowest[draft.wallet]!, balance[draft.wallet]!);
  }
  const openings = FUTURES_WALLETS.map((wallet, w): Draft => {
    const spec = SPOT_COINS.find((coin) => coin.coin === wallet.marginCoin);
    const decimals = spec?.decimals ?? 6;
    const granule = 10 ** (FIXED_DECIMALS - decimals);
    const cushion = Math.round(((spec?.max ?? 5000) / 5) * 10 ** decimals) * granule;
    const needed = Math.ceil(-lowest[w]! / granule) * granule;
    return { ts: at, wallet: w, type: 'TRANSFER_IN', market: -1, amount: needed + cushion, fee: 0 };
  });
  drafts.unshift(...openings);
}

function toColumns(drafts: Draft[]): FuturesColumns {
  const n = drafts.length;
  const columns: FuturesColumns = {
    ids: new Float64Array(n),
    wallet: new Uint8Array(n),
    type: new Uint8Array(n),
    market: new Int8Array(n),
    amount: new Float64Array(n),
    fee: new Float64Array(n),
  };
  let seq = 0;
  drafts.forEach((draft, i) => {
    seq = i > 0 && draft.ts === drafts[i - 1]!.ts ? seq + 1 : 0;
    if (seq >= ID_FACTOR) throw new Error('futures generator: more than 999 records share one ts');
    columns.ids[i] = draft.ts * ID_FACTOR + seq;
    columns.wallet[i] = draft.wallet;
    columns.type[i] = futureTaxTypeIndex(draft.type);
    columns.market[i] = draft.market;
    columns.amount[i] = draft.amount;
    columns.fee[i] = draft.fee;
  });
  return columns;
}

/** Integer 1e-8 units of a decimal text of at most 8 decimals (the positions' values): exact. */
export function units(text: string): number {
  const negative = text.startsWith('-');
  const [whole = '0', fraction = ''] = (negative ? text.slice(1) : text).split('.');
  if (fraction.length > FIXED_DECIMALS) throw new Error(`futures generator: ${text} has more than 8 decimals`);
  const value = Number(whole) * 10 ** FIXED_DECIMALS + Number(fraction.padEnd(FIXED_DECIMALS, '0'));
  return negative ? -value : value;
}

export function emptyFuturesColumns(): FuturesColumns {
  return {
    ids: new Float64Array(0),
    wallet: new Uint8Array(0),
    type: new Uint8Array(0),
    market: new Int8Array(0),
    amount: new Float64Array(0),
    fee: new Float64Array(0),
  };
}
