import { SIM_LEDGERS } from '../ledgers/index.ts';
import { SPOT_COINS } from './coins.ts';

const ID_FACTOR = 1000;

/** Each slot a wallet ledger takes (its `transferSlots`), checked once: no slot is taken twice. */
const SLOTS = new Map<number, (coin: string) => string>();
for (const ledger of SIM_LEDGERS) {
  for (const [slot, side] of Object.entries(ledger.transferSlots)) {
    if (SLOTS.has(Number(slot))) throw new Error(`${ledger.stream}: transfer slot ${slot} is taken twice`);
    SLOTS.set(Number(slot), side);
  }
}

/**
 * The other side of one spot `Transfer in`/`Transfer out`: another wallet of the same account,
 * decided by the record's id alone (so every generator agrees without sharing state). Its slot,
 * floor(id / 1000) % 10, goes to the wallet ledger that takes it (ledgers/<x>.ts: margin takes 0
 * and 1, P2P 2), the rest to futures (src/simulator/README.md, "Margin and P2P ledgers").
 */
export function transferSide(spotId: number, coin: number): string {
  const side = SLOTS.get(Math.floor(spotId / ID_FACTOR) % 10);
  return side === undefined ? 'futures' : side(SPOT_COINS[coin]!.coin);
}
