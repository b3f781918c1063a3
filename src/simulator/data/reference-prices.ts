/**
 * The simulator's market: every coin's typical price in USDT. Fills are drawn within ±5% of it
 * (spot-orders.ts), so the two legs of a fill are worth about the same. It is flat over time on
 * purpose: the simulator models an exchange's records, not a market.
 */
export const USDT_PRICE: Readonly<Record<string, number>> = {
  USDT: 1,
  BTC: 80_000,
  ETH: 3_000,
  SOL: 160,
  XRP: 1.2,
  DOGE: 0.2,
  BGB: 5,
};

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
