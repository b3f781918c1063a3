import type pg from 'pg';

/**
 * The wallets whose opening balances an export states, as the tax-tool files name them
 * (docs/reports.md, "Two wallets"): the spot wallet, whose records carry the exchange's balance
 * after each of them, and the futures wallet, one wallet whose coins are the margin coins of
 * every futures wallet (productType, margin coin) of the exchange: the sum of its ledger records.
 */
export type Wallet = 'spot' | 'futures';

/** Per wallet, per coin: the exchange's balance at the period's start (coins holding nothing left out). */
export type OpeningBalances = Readonly<Record<Wallet, Readonly<Record<string, string>>>>;

/**
 * The futures wallet's: the sum of its ledger records before `start` (below).
 * The exchange's own spot balance of each coin just before `start`: the `balance` of the coin's last
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
  const futures: Record<string, string> = {};
  const ledger = await db.query<{ coin: string; balance: string }>(FUTURES_OPENING_SQL, [
    options.accountId,
    options.start.toISOString(),
    options.coin ?? null,
  ]);
  for (const row of ledger.rows) futures[row.coin] = row.balance;
  return { spot, futures };
}

// The futures wallet holds what its stored records before the start sum to (the exchange states no
// futures balance; from the account's first futures record the ledger is complete), per margin coin.
const FUTURES_OPENING_SQL = `
SELECT margin_coin AS coin, sum(amount + fee)::text AS balance
FROM futures_ledger_record
WHERE account_id = $1::uuid AND ts < $2::timestamptz AND ($3::text IS NULL OR margin_coin = $3::text)
GROUP BY margin_coin
HAVING sum(amount + fee) <> 0
ORDER BY margin_coin COLLATE "C"`;

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
