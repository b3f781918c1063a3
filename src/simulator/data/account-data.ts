import { type LedgerStores, ledgerStores } from '../ledgers/index.ts';
import { emptyFuturesColumns, generateFuturesLedger } from './futures-generator.ts';
import { FuturesStore } from './futures-store.ts';
import { LedgerStore } from './ledger-store.ts';
import { generatePositions } from './position-generator.ts';
import { PositionStore } from './position-store.ts';
import type { ScaleSpec } from './scale.ts';
import { generateSpotRecords } from './spot-generator.ts';
import { emptySpotColumns, SpotStore } from './spot-store.ts';
import { generateTransfers } from './transfer-generator.ts';
import { TransferStore } from './transfer-store.ts';
import { transferSide } from './wallet-sides.ts';

/**
 * The history streams of one main account; the wallet ledgers (margin, P2P: ledgers/index.ts) under
 * their keys, their transfers the other side of spot's.
 */
export interface AccountData extends LedgerStores {
  spot: SpotStore;
  positions: PositionStore;
  transfers: TransferStore;
  /** The futures wallets' finance records, consistent with spot's transfers and the positions. */
  futures: FuturesStore;
  /** Uids of the broker's client sub-accounts that the transfer records belong to. */
  brokerSubUids: readonly string[];
}

export const BROKER_SUB_ACCOUNTS = 24;

export function generateAccountData(
  seed: number,
  scale: ScaleSpec,
  anchor: number,
  brokerSubUids: string[],
): AccountData {
  const spot = generateSpotRecords({ seed, count: scale.spotRecords, bursts: scale.bursts, anchor });
  const transfers = generateTransfers(seed, scale.transfers, anchor, brokerSubUids.length);
  const positions = generatePositions(seed, scale.positions, anchor);
  return {
    spot: new SpotStore(spot),
    positions: new PositionStore(positions),
    futures: new FuturesStore(generateFuturesLedger(seed, spot, positions, anchor)),
    ...ledgerStores(
      (ledger) =>
        new LedgerStore(ledger.generate(seed, spot, anchor, (i) => transferSide(spot.ids[i]!, spot.coin[i]!))),
    ),
    transfers: new TransferStore(transfers, brokerSubUids),
    brokerSubUids,
  };
}

export function emptyAccountData(): AccountData {
  return {
    spot: new SpotStore(emptySpotColumns()),
    positions: new PositionStore([]),
    futures: new FuturesStore(emptyFuturesColumns()),
    ...ledgerStores(() => new LedgerStore([])),
    transfers: new TransferStore(generateTransfers(0, 0, 0, 1), []),
    brokerSubUids: [],
  };
}
