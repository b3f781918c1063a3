import type { LedgerEntry } from '../../booking/ledger-entry.ts';
import { WALLET_LEDGER_WALLETS } from '../../streams/registry.ts';
import { type Ledger, listedTreatment, type Treatment, type TreatmentKind } from './treatment-table.ts';

/**
 * The accounting category's treatment, for an entry whose tax type no table knows (an entry built
 * by hand in a test, or a type the exchange added): the category says as much as the table would.
 */
const BY_CATEGORY: Readonly<Record<string, TreatmentKind>> = {
  deposit: 'deposit',
  withdrawal: 'withdrawal',
  trade: 'trade-leg',
  fee: 'other-fee',
  rebate: 'rebate',
  refund: 'rebate',
  income: 'income',
  'internal-transfer': 'own-move',
  lock: 'own-move',
  earn: 'own-move',
  loan: 'loan',
};

const FUTURES_TRANSFERS = new Set(['TRANSFER_IN', 'TRANSFER_OUT']);

/**
 * A futures transfer whose spot side no stored record shows (pairId null: the wallet's balance
 * brought forward from before the history, say) is no move between the wallets the walk follows:
 * coins in are coins from outside, of unknown cost and date (never invented); coins out leave the
 * lots as a withdrawal does. So the pools follow what the two wallets hold (docs/reports.md,
 * "Treatments"). A transfer with its spot side stays an own move: the lots stay.
 */
export const UNSEEN_SIDE: Readonly<Record<'in' | 'out', Treatment>> = {
  in: { kind: 'deposit', note: 'a futures transfer in with no spot side: coins from outside, cost unknown' },
  out: { kind: 'withdrawal', note: 'a futures transfer out with no spot side: the lots leave' },
};

/**
 * The ledger and tax type of an entry (ledger-entries.ts names them in `spot_types`): a wallet
 * ledger's entry (every wallet the registry's wallet ledgers declare) by its wallet's own table.
 */
export function entryTaxType(entry: LedgerEntry): { ledger: Ledger; taxType: string } {
  if (entry.wallet !== undefined && WALLET_LEDGER_WALLETS.includes(entry.wallet)) {
    // `<type> <scope...>` (wallet-entries.ts); a fee row `<type> ... fee`.
    return { ledger: entry.wallet, taxType: entry.spotTypes.split(' ')[0] ?? '' };
  }
  if (entry.wallet === 'futures' || entry.category === 'futures') {
    // `<futureTaxType> <symbol> <category>`; a closed position's row (before the ledger) has none.
    const taxType = entry.recordIds.startsWith('position:') ? '' : (entry.spotTypes.split(' ')[0] ?? '');
    return { ledger: 'futures', taxType };
  }
  const taxType = entry.recordIds.endsWith(':fee') ? entry.spotTypes.replace(/ fee$/, '') : entry.spotTypes;
  return { ledger: 'spot', taxType };
}

/**
 * How the walk treats an entry (walk-history.ts): the table's treatment of its ledger and tax type,
 * except that the fee of an entry (`<id>:fee`) pays for no trade: always `other-fee`.
 */
export function entryTreatment(entry: LedgerEntry): Treatment & { taxType: string; ledger: Ledger } {
  const { ledger, taxType } = entryTaxType(entry);
  if (entry.recordIds.endsWith(':fee')) return { kind: 'other-fee', taxType, ledger };
  const listed = listedTreatment(ledger, taxType);
  if (listed !== undefined && ledger === 'futures' && FUTURES_TRANSFERS.has(taxType) && entry.pairId === null) {
    return { ...UNSEEN_SIDE[taxType === 'TRANSFER_IN' ? 'in' : 'out'], taxType, ledger };
  }
  if (listed !== undefined) return { ...listed, taxType, ledger };
  return { kind: BY_CATEGORY[entry.category] ?? 'market', taxType, ledger };
}
