import { ENTRY_DESCRIPTION, ENTRY_ORDER, ledgerEntriesCte } from '../../booking/ledger-entries.ts';
import { SqlParams } from '../../booking/sql-params.ts';
import { type InOut, labelSql, type TaxToolLabels } from '../../booking/tax-tool-labels.ts';
import { WALLET_LEDGERS, walletFacts } from '../../streams/registry.ts';
import type { SqlReportDefinition } from '../report-definition.ts';
import { decimal, text } from '../report-definition.ts';

/** CoinTracking transaction types used here. It has no blank type: its plain ones are Deposit/Withdrawal. */
export type CoinTrackingType =
  | 'Trade'
  | 'Deposit'
  | 'Withdrawal'
  | 'Income'
  | 'Income (non taxable)'
  | 'Reward / Bonus'
  | 'Airdrop'
  | 'Interest Income'
  | 'Other Income'
  | 'Other Fee'
  | 'Other Expense'
  | 'Borrowing Fee'
  | 'Margin Fee'
  | 'Spend'
  | 'Derivatives / Futures Profit'
  | 'Derivatives / Futures Loss';

// Movements that keep ownership (locks, earn, the user's other accounts) are plain Deposit /
// Withdrawal: CoinTracking does not tax those already.
const PLAIN: InOut<CoinTrackingType> = { in: 'Deposit', out: 'Withdrawal' };
const FEE: InOut<CoinTrackingType> = { in: 'Deposit', out: 'Other Fee' };
const REWARD: InOut<CoinTrackingType> = { in: 'Reward / Bonus', out: 'Withdrawal' };

/** CoinTracking's words for the ledger's entries (types by category, then the spotTaxTypes that differ). */
export const COINTRACKING_TYPES: TaxToolLabels<CoinTrackingType> = {
  trade: 'Trade',
  fee: 'Other Fee',
  none: 'Deposit',
  futuresGain: 'Derivatives / Futures Profit',
  futuresLoss: 'Derivatives / Futures Loss',
  futuresTransfer: PLAIN,
  byCategory: {
    deposit: PLAIN,
    withdrawal: PLAIN,
    trade: PLAIN,
    fee: FEE,
    rebate: REWARD,
    refund: { in: 'Income (non taxable)', out: 'Withdrawal' },
    income: REWARD,
    expense: { in: 'Deposit', out: 'Other Expense' },
    'copy-trading': FEE,
    'internal-transfer': PLAIN,
    lock: PLAIN,
    earn: PLAIN,
    loan: PLAIN,
    adjustment: PLAIN,
    unmapped: PLAIN,
  },
  byType: {
    "Strategic Income-Traders' accounts": { in: 'Income', out: 'Withdrawal' },
    'Copy Trade profit': { in: 'Income', out: 'Other Fee' },
    'Airdrop Reward-A': { in: 'Airdrop', out: 'Withdrawal' },
    'Airdrop Reward-B': { in: 'Airdrop', out: 'Withdrawal' },
    Gains: { in: 'Other Income', out: 'Withdrawal' },
    Interest: { in: 'Interest Income', out: 'Borrowing Fee' },
    Consumption: { in: 'Deposit', out: 'Spend' },
  },
  // The margin and P2P wallets' records (wallet-entries.ts), by their ledger's treatment.
  byTreatment: {
    // Moves to and from spot: a Withdrawal from one Exchange and a Deposit to the other.
    'own-move': PLAIN,
    'trade-leg': PLAIN,
    // A loan and its repayment: plain, as spot's loans.
    borrowing: PLAIN,
    // Interest and a liquidation's fee.
    'other-fee': { in: 'Deposit', out: 'Margin Fee' },
    income: { in: 'Income', out: 'Withdrawal' },
    // Confiscated / compensate (flagged for review in the manifest).
    market: PLAIN,
    // A P2P buy or sell: the fiat side is not in the record (flagged for review in the manifest).
    deposit: PLAIN,
    'unknown-proceeds': PLAIN,
  },
};

/**
 * CoinTracking's CSV import format, dates in UTC. Tx-ID carries the exchange's record id(s), which
 * CoinTracking uses to recognise a row imported twice. Every wallet in one file: the Exchange
 * column names the wallet (`<account> Spot`, `<account> Futures`, and each wallet ledger's,
 * `<account> Margin`, `<account> P2P`), CoinTracking's unit of balance; a move between two is a
 * Withdrawal from one and a Deposit to the other (docs/reports.md, "Margin and P2P wallets").
 *
 * Amounts by CoinTracking's rule ("Entering fees"): the Fee column is information only, never
 * deducted; the Buy amount is what arrived net of a fee taken from it, the Sell amount what left
 * including a fee paid in that coin (trades and withdrawals alike). A fee in a third coin is its
 * own `Other Fee` row (the record's own entry). docs/reports.md, "CoinTracking".
 */
export const coinTrackingReport: SqlReportDefinition = {
  name: 'cointracking',
  title: 'CoinTracking CSV',
  description: "every wallet (spot, futures, margin, P2P) in CoinTracking's CSV import format (UTC dates)",
  dateZone: 'UTC',
  streams: ['spot', 'futures-ledger', ...WALLET_LEDGERS],
  closedPositionsBeforeLedger: true,
  accepts: { coin: true, includePending: false },
  statesOpeningBalances: true,
  columns: [
    text('Type'),
    decimal('Buy Amount'),
    text('Buy Currency'),
    decimal('Sell Amount'),
    text('Sell Currency'),
    decimal('Fee'),
    text('Fee Currency'),
    text('Exchange'),
    text('Trade-Group'),
    text('Comment'),
    text('Date'),
    text('Tx-ID'),
  ],
  kind: 'sql',
  query(params) {
    const p = new SqlParams();
    const cte = ledgerEntriesCte(p, params, { walletLedgers: true });
    const wallets = WALLET_LEDGERS.map((stream) => {
      const facts = walletFacts(stream);
      return ` WHEN ${p.add(facts.label, 'text')} THEN ${p.add(` ${facts.name}`, 'text')}`;
    }).join('');
    const exchange = p.add(params.accountName ?? 'ledgerline', 'text');
    const type = labelSql(p, COINTRACKING_TYPES);
    const sql = `${cte}
      SELECT ${type},
        (CASE WHEN fee_coin = received_coin THEN received_amount - fee_amount ELSE received_amount END)::text,
        received_coin,
        (CASE WHEN fee_coin = sent_coin THEN sent_amount + fee_amount ELSE sent_amount END)::text,
        sent_coin, fee_amount::text, fee_coin,
        ${exchange} || CASE wallet WHEN 'futures' THEN ' Futures'${wallets} ELSE ' Spot' END, category, ${ENTRY_DESCRIPTION},
        to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'), record_ids, flag
      FROM entries ${ENTRY_ORDER}`;
    return { text: sql, values: p.values };
  },
};
