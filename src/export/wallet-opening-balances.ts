import type pg from 'pg';

import { type OpeningBalances, openingBalances } from '../accounting/balances/opening-balances.ts';
import { streamDefinition, WALLET_LEDGERS, walletFacts, type WalletLedger } from '../streams/registry.ts';

/**
 * The opening balances an export states: spot's and futures' (accounting/balances), and each
 * wallet ledger's under its label (`margin`, `p2p`), as the tax files name the wallets
 * (docs/reports.md, "Opening balances").
 */
export type ExportOpeningBalances = OpeningBalances & Readonly<Record<string, Readonly<Record<string, string>>>>;

export async function exportOpeningBalances(
  db: pg.ClientBase,
  options: { accountId: string; start: Date; coin?: string | undefined },
): Promise<ExportOpeningBalances> {
  const wallets: Record<string, Record<string, string>> = {};
  for (const stream of WALLET_LEDGERS) {
    const { rows } = await db.query<{ coin: string; balance: string }>(walletOpeningSql(stream), [
      options.accountId,
      options.start.toISOString(),
      options.coin ?? null,
    ]);
    wallets[walletFacts(stream).label] = Object.fromEntries(rows.map((r) => [r.coin, r.balance]));
  }
  return { ...(await openingBalances(db, options)), ...wallets };
}

/**
 * $1 account, $2 start, $3 coin or null. A wallet whose records carry the exchange's running total
 * (margin's `total`, per scope and coin) opens at the total after each (scope, coin)'s last record
 * before the start, summed over its scopes (one wallet, like futures); a wallet without one (P2P) at
 * the sum of its records' changes before the start. Coins holding nothing left out, byte order.
 */
function walletOpeningSql(stream: WalletLedger): string {
  const facts = walletFacts(stream);
  const definition = streamDefinition(stream);
  const scope = definition.scopeColumn ? `${definition.scopeColumn.name}::text` : `''`;
  const rows = `SELECT ${scope} AS scope, ${facts.coin} AS coin, record_id, ts, (${facts.change}) AS change,
                       ${facts.runningTotal ?? 'NULL::numeric'} AS total
                  FROM ${definition.table.table}
                 WHERE account_id = $1::uuid AND ts < $2::timestamptz AND ($3::text IS NULL OR ${facts.coin} = $3::text)`;
  const balances = facts.runningTotal
    ? `SELECT coin, sum(total) AS balance FROM (
         SELECT DISTINCT ON (scope, coin) scope, coin, total FROM (${rows}) w
          ORDER BY scope, coin, ts DESC, length(record_id) DESC, record_id COLLATE "C" DESC) last
        GROUP BY coin`
    : `SELECT coin, sum(change) AS balance FROM (${rows}) w GROUP BY coin`;
  return `SELECT coin, balance::text AS balance FROM (${balances}) b
           WHERE balance <> 0 ORDER BY coin COLLATE "C"`;
}
