import { useDemoYear } from './demo-year.ts';
import { futuresLedgerCases } from './futures-ledger-cases.ts';
import { walletLedgersCases } from './wallet-ledgers-cases.ts';

/**
 * The futures, margin and P2P ledgers of the demo account, a year backfilled with every stream: one
 * backfill for both sets of cases, which were two files backfilling the same year each.
 */
const demo = useDemoYear();
futuresLedgerCases(demo);
walletLedgersCases(demo);
