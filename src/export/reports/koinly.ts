import { ENTRY_DESCRIPTION, ENTRY_ORDER, ledgerEntriesCte } from '../../booking/ledger-entries.ts';
import { SqlParams } from '../../booking/sql-params.ts';
import { type InOut, labelSql, type TaxToolLabels } from '../../booking/tax-tool-labels.ts';
import { type Stream, walletFacts, type WalletLedger } from '../../streams/registry.ts';
import type { SqlReportDefinition } from '../report-definition.ts';
import { decimal, text } from '../report-definition.ts';

/**
 * Koinly tags, spelled as Koinly's tag list spells them ('' = none: a plain deposit is an
 * acquisition, a plain withdrawal a disposal). `Add to Pool` / `Remove from Pool` mark coins set
 * aside and returned (locks, earn, the user's other accounts): no disposal, the cost basis kept.
 * The futures results use `realized gain`, the CSV spelling Koinly's futures article gives
 * ("Realized P&L" in its app).
 */
export type KoinlyLabel =
  | ''
  | 'Airdrop'
  | 'Reward'
  | 'Income'
  | 'Lending interest'
  | 'Fee refund'
  | 'Cashback'
  | 'Remove from Pool'
  | 'Cost'
  | 'Loan fee'
  | 'Add to Pool'
  | 'Margin loan'
  | 'Margin fee'
  | 'realized gain';

const PLAIN: InOut<KoinlyLabel> = { in: '', out: '' };
const COST: InOut<KoinlyLabel> = { in: '', out: 'Cost' };
// Coins set aside and returned, still the user's: Koinly's pool tags (no disposal, basis kept).
const POOL: InOut<KoinlyLabel> = { in: 'Remove from Pool', out: 'Add to Pool' };
const INCOME: InOut<KoinlyLabel> = { in: 'Income', out: '' };
const AIRDROP: InOut<KoinlyLabel> = { in: 'Airdrop', out: '' };

/** Koinly's words for the ledger's entries (labels by category, then the types that differ). */
export const KOINLY_LABELS: TaxToolLabels<KoinlyLabel> = {
  trade: '',
  // A fee alone is a cost (Koinly rejects a deposit with a fee, so an incoming record's fee is one too).
  fee: 'Cost',
  none: '',
  futuresGain: 'realized gain',
  futuresLoss: 'realized gain',
  // Plain deposit / withdrawal: Koinly merges the pair into a transfer between the user's wallets.
  futuresTransfer: PLAIN,
  byCategory: {
    deposit: PLAIN,
    withdrawal: PLAIN,
    trade: PLAIN,
    fee: COST,
    rebate: { in: 'Cashback', out: '' },
    refund: { in: 'Fee refund', out: '' },
    income: { in: 'Reward', out: '' },
    expense: COST,
    'copy-trading': COST,
    'internal-transfer': POOL,
    lock: POOL,
    earn: POOL,
    loan: PLAIN,
    adjustment: PLAIN,
    unmapped: PLAIN,
  },
  byType: {
    "Strategic Income-Traders' accounts": INCOME,
    'Copy Trade profit': { in: 'Income', out: 'Cost' },
    'Trading fee rebate': { in: 'Fee refund', out: '' },
    'Airdrop Reward-A': AIRDROP,
    'Airdrop Reward-B': AIRDROP,
    Gains: INCOME,
    Interest: { in: 'Lending interest', out: 'Loan fee' },
    // Moves to and from the futures wallet: plain, so that Koinly matches them with the futures file's side.
    'Transfer in': PLAIN,
    'Transfer out': PLAIN,
  },
  // The margin and P2P wallets' records (wallet-entries.ts), by their ledger's treatment.
  byTreatment: {
    // Moves to and from spot: plain, matched with the spot file's side by the same TxHash.
    'own-move': PLAIN,
    // A leg left over from a margin trade's pair: its side as a deposit or withdrawal.
    'trade-leg': PLAIN,
    // Koinly books a loan as a plain deposit (tagged, the tag changing nothing) and its repayment as
    // a plain withdrawal ("Loans, repayments": no tag needed).
    borrowing: { in: 'Margin loan', out: '' },
    // Interest and a liquidation's fee: Koinly's expense tag for margin.
    'other-fee': { in: '', out: 'Margin fee' },
    income: INCOME,
    // Confiscated / compensate: written plain, flagged for review in the manifest.
    market: PLAIN,
    // A P2P buy or sell: the fiat side is not in the record; Koinly values it at market (flagged for review).
    deposit: PLAIN,
    'unknown-proceeds': PLAIN,
  },
};

/**
 * Koinly's universal CSV (header exactly as Koinly documents it), dates in UTC: one file per wallet,
 * as Koinly imports a CSV into one wallet: `koinly` is the spot wallet, `koinly-futures` the
 * futures wallet, `koinly-<label>` each wallet ledger's (`koinly-margin`, `koinly-p2p`:
 * docs/reports.md, "Margin and P2P wallets"). A move between spot and another wallet is a withdrawal in one
 * file and a deposit in the other at the same instant, same coin and amount, and the same TxHash
 * (the spot record's id), which Koinly's transfer matching merges into a transfer between own wallets.
 * Koinly deducts Fee Amount from the wallet besides Sent Amount and adds a trade's fee to the cost
 * of what it received; a fee paid in a third coin (BGB `Transaction fee deduct`) therefore goes on
 * its trade's row (ledger-entries.ts `third_fee_*`), and its own entry (`attached`) is left out:
 * the row names both records. TxHash is otherwise the entry's stable row id (`row_id`), so Koinly's
 * duplicate check (same time, amounts and hash) tells identical fills apart and a re-exported
 * row keeps its hash. docs/reports.md, "Koinly".
 */
function koinlyWallet(
  wallet: string,
  names: { name: string; title: string; walletName: string; streams: readonly Stream[] },
): SqlReportDefinition {
  return {
    name: names.name,
    title: names.title,
    description: `the ${names.walletName} wallet in Koinly's universal import format (UTC dates)`,
    dateZone: 'UTC',
    streams: names.streams,
    accepts: { coin: true, includePending: false },
    statesOpeningBalances: true,
    columns: [
      text('Date'),
      decimal('Sent Amount'),
      text('Sent Currency'),
      decimal('Received Amount'),
      text('Received Currency'),
      decimal('Fee Amount'),
      text('Fee Currency'),
      decimal('Net Worth Amount'),
      text('Net Worth Currency'),
      text('Label'),
      text('Description'),
      text('TxHash'),
    ],
    kind: 'sql',
    query(params) {
      const p = new SqlParams();
      const cte = ledgerEntriesCte(p, params, {
        thirdFeeOnTrade: true,
        walletLedgers: wallet !== 'spot' && wallet !== 'futures',
      });
      const label = labelSql(p, KOINLY_LABELS);
      const sql = `${cte}
      SELECT to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS "UTC"'),
        sent_amount::text, sent_coin, received_amount::text, received_coin,
        coalesce(fee_amount, third_fee_amount)::text, coalesce(fee_coin, third_fee_coin),
        '', '', ${label}, ${ENTRY_DESCRIPTION} || coalesce(', fee ' || third_fee_ids, ''),
        coalesce(pair_id, row_id), flag
      FROM entries WHERE NOT attached AND wallet = ${p.add(wallet, 'text')} ${ENTRY_ORDER}`;
      return { text: sql, values: p.values };
    },
  };
}

export const koinlyReport: SqlReportDefinition = koinlyWallet('spot', {
  name: 'koinly',
  title: 'Koinly universal CSV',
  walletName: 'spot',
  streams: ['spot', 'futures-ledger'],
});
export const koinlyFuturesReport: SqlReportDefinition = {
  ...koinlyWallet('futures', {
    name: 'koinly-futures',
    title: 'Koinly universal CSV, futures wallet',
    walletName: 'futures',
    streams: ['spot', 'futures-ledger'],
  }),
  // Its futures rows before the ledger's first record are closed positions'.
  closedPositionsBeforeLedger: true,
};

/** The Koinly file of a wallet ledger of the registry (margin-ledger: `koinly-margin`, p2p-ledger: `koinly-p2p`). */
export function koinlyWalletLedgerReport(stream: WalletLedger): SqlReportDefinition {
  const facts = walletFacts(stream);
  return koinlyWallet(facts.label, {
    name: `koinly-${facts.label}`,
    title: `Koinly universal CSV, ${inText(facts.name)} wallet`,
    walletName: inText(facts.name),
    // Its transfers pair with spot's records.
    streams: ['spot', stream],
  });
}

/** A wallet's name inside a sentence: `margin`, but `P2P` as written. */
const inText = (name: string) => (name === name.toUpperCase() ? name : name.toLowerCase());
