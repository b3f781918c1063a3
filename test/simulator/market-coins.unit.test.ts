import { describe, expect, it } from 'vitest';

import { SPOT_COINS } from '../../src/simulator/data/coins.ts';
import { FUTURES_WALLETS } from '../../src/simulator/data/futures-wallets.ts';
import { FUTURES_MARKETS } from '../../src/simulator/data/markets.ts';
import { dailyClosesCsv, SIMULATOR_COINS, USDT_PRICE } from '../../src/simulator/data/reference-prices.ts';
import { TRANSFER_COINS } from '../../src/simulator/data/transfer-generator.ts';

// Issue 42 item 3: every coin the simulator trades has daily closes in its market data and in the
// demo's price import; a stablecoin is priced from a source, never assumed 1:1 without one.
describe("the simulator's market data", () => {
  it('names every coin a record can carry: spot, transfers, futures wallets and futures markets', () => {
    const carried = new Set([
      ...SPOT_COINS.map((spec) => spec.coin),
      ...TRANSFER_COINS,
      ...FUTURES_WALLETS.map((wallet) => wallet.marginCoin),
      ...FUTURES_MARKETS.map((market) => market.marginCoin),
    ]);
    expect(new Set(SIMULATOR_COINS)).toEqual(carried);
    expect(SIMULATOR_COINS).toContain('USDC');
  });

  it('has a positive USDT close for every coin it carries', () => {
    for (const coin of SIMULATOR_COINS) {
      expect(USDT_PRICE[coin], coin).toBeGreaterThan(0);
    }
  });

  it("writes a close for every coin but USDT itself on every day of the demo's price file", () => {
    const lines = dailyClosesCsv('2026-03-28', '2026-03-30').trim().split('\n');
    expect(lines[0]).toBe('date,base,quote,price');
    const byDay = new Map<string, string[]>();
    for (const line of lines.slice(1)) {
      const [date, base, quote] = line.split(',');
      expect(quote).toBe('USDT');
      byDay.set(date!, [...(byDay.get(date!) ?? []), base!]);
    }
    const expected = SIMULATOR_COINS.filter((coin) => coin !== 'USDT');
    expect([...byDay.keys()]).toEqual(['2026-03-28', '2026-03-29', '2026-03-30']);
    for (const coins of byDay.values()) expect(coins.sort()).toEqual(expected);
    expect(lines).toContain('2026-03-29,USDC,USDT,1');
  });
});
