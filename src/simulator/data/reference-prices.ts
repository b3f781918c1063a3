import { SPOT_COINS } from './coins.ts';
import { FUTURES_WALLETS } from './futures-wallets.ts';
import { FUTURES_MARKETS } from './markets.ts';
import { TRANSFER_COINS } from './transfer-generator.ts';

/**
 * The simulator's market: every coin's typical price in USDT. Fills are drawn within ±5% of it
 * (spot-orders.ts), so the two legs of a fill are worth about the same. It is flat over time on
 * purpose: the simulator models an exchange's records, not a market.
 *
 * USDC is here as a market price of its own (1 USDC = 1 USDT in this flat market), not because a
 * stablecoin is worth its peg: a valuation of USDC reads this close like any coin's, and a user
 * imports a vendor's USDC closes the same way (docs/reports.md, "Prices and valuation").
 */
export const USDT_PRICE: Readonly<Record<string, number>> = {
  USDT: 1,
  USDC: 1,
  BTC: 80_000,
  ETH: 3_000,
  SOL: 160,
  XRP: 1.2,
  DOGE: 0.2,
  BGB: 5,
};

/**
 * Every coin a record of the simulator can carry: spot's coins, the broker transfers', every futures
 * wallet's margin coin and every futures market's margin coin. Each has a close in USDT_PRICE
 * (test/simulator/market-coins.unit.test.ts), so the demo's price import values every coin held.
 */
export const SIMULATOR_COINS: readonly string[] = [
  ...new Set([
    ...SPOT_COINS.map((spec) => spec.coin),
    ...TRANSFER_COINS,
    ...FUTURES_WALLETS.map((wallet) => wallet.marginCoin),
    ...FUTURES_MARKETS.map((market) => market.marginCoin),
  ]),
].sort();

/**
 * Daily closes of every coin against USDT for the UTC days `fromDay`..`toDay` (ISO dates, both
 * included), as the CSV `ledgerline prices import` reads (date, base, quote, price): what a user
 * would download from a market-data vendor, for the demo to value with.
 */
export function dailyClosesCsv(fromDay: string, toDay: string): string {
  const lines = ['date,base,quote,price'];
  const end = Date.parse(`${toDay}T00:00:00Z`);
  for (let day = Date.parse(`${fromDay}T00:00:00Z`); day <= end; day += 86_400_000) {
    const date = new Date(day).toISOString().slice(0, 10);
    for (const [coin, price] of Object.entries(USDT_PRICE)) {
      if (coin !== 'USDT') lines.push(`${date},${coin},USDT,${price}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
