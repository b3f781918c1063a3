import { hashString, hashUnit } from '../prng.ts';
import { HOUR } from './time.ts';

export interface NetFlowPoint {
  netFlow: string;
  ts: string;
}

/**
 * 24 hourly points for the last 24 hours, oldest first. Each value is a pure
 * function of (seed, symbol, hour), so two calls in the same hour agree.
 */
export function netFlowSeries(seed: number, symbol: string, now: number): NetFlowPoint[] {
  const lastHour = Math.floor(now / HOUR) * HOUR;
  const symbolHash = hashString(symbol);
  const points: NetFlowPoint[] = [];
  for (let k = 23; k >= 0; k--) {
    const ts = lastHour - k * HOUR;
    const u = hashUnit(seed, symbolHash, ts / HOUR);
    // Ten-thousandths, as an integer, then placed: exact text, no float noise.
    const tenThousandths = Math.round((u - 0.5) * 2 * 50_000_000_000);
    points.push({ netFlow: placeDecimals(tenThousandths, 4), ts: String(ts) });
  }
  return points;
}

function placeDecimals(value: number, decimals: number): string {
  const negative = value < 0;
  const digits = String(Math.abs(value)).padStart(decimals + 1, '0');
  const text = `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
  return negative ? `-${text}` : text;
}
