import type pg from 'pg';

/** One coin's closing balance at the end of each month, oldest first, exactly as stored (text). */
export interface CoinBalances {
  coin: string;
  months: Array<{ month: string; balance: string }>;
}

/** How many months the chart shows, ending with the newest month that has a record. */
export const BALANCE_MONTHS = 12;

/**
 * Closing balance per coin per UTC month, from the stored spot records' `balance` (the coin's
 * balance after that record): the balance of each month's last record. A month without a record
 * closes at the previous month's balance. Coins are those with a record in the months shown.
 */
export async function monthlyBalances(pool: pg.Pool, accountId: string): Promise<CoinBalances[]> {
  const result = await pool.query<{ coin: string; month: string; balance: string }>(
    `WITH closing AS (
       SELECT DISTINCT ON (coin, date_trunc('month', ts AT TIME ZONE 'UTC'))
              coin, date_trunc('month', ts AT TIME ZONE 'UTC') AS month, balance
         FROM spot_record WHERE account_id = $1
        ORDER BY coin, date_trunc('month', ts AT TIME ZONE 'UTC'), ts DESC, length(record_id) DESC, record_id DESC
     )
     SELECT coin, to_char(month, 'YYYY-MM') AS month, balance::text AS balance FROM closing ORDER BY coin, month`,
    [accountId],
  );
  if (result.rows.length === 0) return [];
  const newest = result.rows.reduce((m, r) => (r.month > m ? r.month : m), '0000-00');
  const months = lastMonths(newest, BALANCE_MONTHS);
  const coins = new Map<string, Map<string, string>>();
  for (const row of result.rows) {
    if (!coins.has(row.coin)) coins.set(row.coin, new Map());
    coins.get(row.coin)!.set(row.month, row.balance);
  }
  const out: CoinBalances[] = [];
  for (const [coin, byMonth] of coins) {
    // Carried into the window from before it, then forward through months without a record.
    let balance = [...byMonth.entries()].filter(([m]) => m < months[0]!).at(-1)?.[1];
    const series = months.map((month) => {
      balance = byMonth.get(month) ?? balance;
      return { month, balance: balance ?? '0' };
    });
    if ([...byMonth.keys()].some((m) => m >= months[0]!)) out.push({ coin, months: series });
  }
  return out;
}

/** The `count` months ending with `last` (YYYY-MM), oldest first. */
function lastMonths(last: string, count: number): string[] {
  const [year, month] = last.split('-').map(Number) as [number, number];
  const out: string[] = [];
  for (let k = count - 1; k >= 0; k--) {
    const d = new Date(Date.UTC(year, month - 1 - k, 1));
    out.push(d.toISOString().slice(0, 7));
  }
  return out;
}
