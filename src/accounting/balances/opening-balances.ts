import type pg from 'pg';

/**
 * The wallets whose opening balances an export states. Today the spot wallet, whose records carry
 * the exchange's balance after each of them; the futures wallets join when their ledger does.
 */
export type Wallet = 'spot';

/** Per wallet, per coin: the exchange's balance at the period's start (coins holding nothing left out). */
export type OpeningBalances = Readonly<Record<Wallet, Readonly<Record<string, string>>>>;

/**
 * The exchange's own balance of each coin just before `start`: the `balance` of the coin's last
 * spot record before it (ts, then the id's numeric order: length, then bytes, as the balances
 * report and the reconciliation order them). A tool that receives only the period's file starts
 * from these to reconcile (docs/reports.md, "Opening balances"). Exact numeric text.
 */
export async function openingBalances(
  db: pg.ClientBase,
  options: { accountId: string; start: Date; coin?: string | undefined },
): Promise<OpeningBalances> {
  const { rows } = await db.query<{ coin: string; balance: string }>(OPENING_SQL, [
    options.accountId,
    options.start.toISOString(),
    options.coin ?? null,
  ]);
  const spot: Record<string, string> = {};
  for (const row of rows) spot[row.coin] = row.balance;
  return { spot };
}

// $1 account, $2 start, $3 coin or null. Coins in byte order, so the manifest is the same every time.
const OPENING_SQL = `
SELECT coin, balance::text AS balance FROM (
  SELECT DISTINCT ON (coin) coin, balance
  FROM spot_record
  WHERE account_id = $1::uuid AND ts < $2::timestamptz AND ($3::text IS NULL OR coin = $3::text)
  ORDER BY coin, ts DESC, length(record_id) DESC, record_id COLLATE "C" DESC
) last
WHERE balance <> 0
ORDER BY coin COLLATE "C"`;
