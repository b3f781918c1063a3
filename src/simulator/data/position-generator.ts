import { Decimal } from 'decimal.js';

import { Rng } from '../prng.ts';
import { FUTURES_MARKETS } from './markets.ts';
import { DAY, MINUTE } from './time.ts';

/** A closed futures position, values already as the API's strings. */
export interface PositionRow {
  /** positionId = utime * 1000 + sequence: ascending ids are ascending (utime, sequence). */
  id: number;
  market: number;
  ctime: number;
  utime: number;
  holdSide: 'long' | 'short';
  posMode: 'one_way_mode' | 'hedge_mode';
  marginMode: 'isolated' | 'crossed';
  openAvgPrice: string;
  closeAvgPrice: string;
  openTotalPos: string;
  closeTotalPos: string;
  pnl: string;
  netProfit: string;
  totalFunding: string;
  openFee: string;
  closeFee: string;
}

const HISTORY = 182 * DAY;
const TAIL = 2 * DAY;
const FEE_RATE = new Decimal('0.0006');

/** Six months of closed positions (plus a short tail after the anchor), sorted ascending by (utime, id). */
export function generatePositions(seed: number, count: number, anchor: number): PositionRow[] {
  const rng = new Rng(seed, 'positions');
  const start = anchor - HISTORY;
  const end = anchor + TAIL;
  const drafts: { ctime: number; utime: number }[] = [];
  for (let i = 0; i < count; i++) {
    const ctime = start + Math.floor(rng.next() * (end - start - MINUTE));
    const duration = Math.floor(Math.exp(Math.log(MINUTE) + rng.next() * Math.log((10 * DAY) / MINUTE)));
    drafts.push({ ctime, utime: Math.min(end, ctime + duration) });
  }
  drafts.sort((a, b) => a.utime - b.utime || a.ctime - b.ctime);
  const rows: PositionRow[] = [];
  let seq = 0;
  for (let i = 0; i < drafts.length; i++) {
    const draft = drafts[i]!;
    seq = i > 0 && draft.utime === drafts[i - 1]!.utime ? seq + 1 : 0;
    rows.push(values(rng, draft.ctime, draft.utime, draft.utime * 1000 + seq));
  }
  return rows;
}

function values(rng: Rng, ctime: number, utime: number, id: number): PositionRow {
  const market = rng.int(0, FUTURES_MARKETS.length - 1);
  const spec = FUTURES_MARKETS[market]!;
  const drift = 1 + 0.25 * Math.sin(ctime / (37 * DAY));
  const open = new Decimal(spec.price * drift * (0.98 + rng.next() * 0.04)).toDecimalPlaces(spec.priceDecimals);
  const close = open.times(0.97 + rng.next() * 0.06).toDecimalPlaces(spec.priceDecimals);
  const rawSize = Math.exp(Math.log(spec.minSize) + rng.next() * Math.log(spec.maxSize / spec.minSize));
  const size = Decimal.max(
    new Decimal(rawSize).toDecimalPlaces(spec.sizeDecimals),
    new Decimal(10).pow(-spec.sizeDecimals),
  );
  const holdSide = rng.chance(0.55) ? 'long' : 'short';
  const direction = holdSide === 'long' ? 1 : -1;
  // Linear contracts settle in the quote coin; inverse ones in the base coin.
  const pnl = spec.inverse
    ? size.times(new Decimal(1).div(open).minus(new Decimal(1).div(close))).times(direction)
    : close.minus(open).times(size).times(direction);
  const notionalOpen = spec.inverse ? size.div(open) : open.times(size);
  const notionalClose = spec.inverse ? size.div(close) : close.times(size);
  const openFee = notionalOpen.times(FEE_RATE).negated();
  const closeFee = notionalClose.times(FEE_RATE).negated();
  const funding = notionalOpen.times((rng.next() - 0.5) * 0.002);
  const places = spec.inverse ? 8 : 6;
  const pnlR = pnl.toDecimalPlaces(places);
  const openFeeR = openFee.toDecimalPlaces(places);
  const closeFeeR = closeFee.toDecimalPlaces(places);
  const fundingR = funding.toDecimalPlaces(places);
  return {
    id,
    market,
    ctime,
    utime,
    holdSide,
    posMode: rng.chance(0.6) ? 'one_way_mode' : 'hedge_mode',
    marginMode: rng.chance(0.7) ? 'crossed' : 'isolated',
    openAvgPrice: open.toFixed(),
    closeAvgPrice: close.toFixed(),
    openTotalPos: size.toFixed(),
    closeTotalPos: size.toFixed(),
    pnl: pnlR.toFixed(),
    netProfit: pnlR.plus(openFeeR).plus(closeFeeR).plus(fundingR).toFixed(),
    totalFunding: fundingR.toFixed(),
    openFee: openFeeR.toFixed(),
    closeFee: closeFeeR.toFixed(),
  };
}
