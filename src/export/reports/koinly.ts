import { ENTRY_DESCRIPTION, ENTRY_ORDER, ledgerEntriesCte } from '../../booking/ledger-entries.ts';
import { SqlParams } from '../../booking/sql-params.ts';
import { type InOut, labelSql, type TaxToolLabels } from '../../booking/tax-tool-labels.ts';
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
};

/**
 * Koinly's universal CSV (header exactly as Koinly documents it), dates in UTC: one file per wallet,
 * as Koinly imports a CSV into one wallet: `koinly` is the spot wallet, `koinly-futures` the
 * futures wallet (docs/reports.md, "Two wallets"). A move between them is a withdrawal in one file
 * and a deposit in the other at the same instant, same coin and amount, and the same TxHash (the
 * spot record's id), which Koinly's transfer matching merges into a transfer between own wallets.
 * Koinly deducts Fee Amount from the wallet besides Sent Amount and adds a trade's fee to the cost
 * of what it received; a fee paid in a third coin (BGB `Transaction fee deduct`) therefore goes on
 * its trade's row (ledger-entries.ts `third_fee_*`), and its own entry (`attached`) is left out:
 * the row names both records. TxHash is otherwise the entry's stable row id (`row_id`), so Koinly's
 * duplicate check (same time, amounts and hash) tells identical fills apart and a re-exported
 * row keeps its hash. docs/reports.md, "Koinly".
 */
function koinlyWallet(wallet: 'spot' | 'futures'): SqlReportDefinition {
  return {
    name: wallet === 'spot' ? 'koinly' : 'koinly-futures',
    title: wallet === 'spot' ? 'Koinly universal CSV' : 'Koinly universal CSV, futures wallet',
    description:
      wallet === 'spot'
        ? "the spot wallet in Koinly's universal import format (UTC dates)"
        : "the futures wallet in Koinly's universal import format (UTC dates)",
    dateZone: 'UTC',
    streams: ['spot', 'futures-ledger'],
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
      const cte = ledgerEntriesCte(p, params, { thirdFeeOnTrade: true });
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

export const koinlyReport: SqlReportDefinition = koinlyWallet('spot');
export const koinlyFuturesReport: SqlReportDefinition = koinlyWallet('futures');
