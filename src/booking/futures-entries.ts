import { textSafeIdSql } from './text-safe-ids.ts';

/**
 * The futures results as ledger entries, in the columns of `all_entries` (ledger-entries.ts), of
 * movement `futures-gain` or `futures-loss`.
 * A futures trade buys and sells nothing a tax tool can hold: only its outcome counts. Each
 * position closed in the period (its uTime) is one realized profit-or-loss row in its margin coin:
 * pnl + openFee + closeFee (the exchange's fees are ≤ 0), received when ≥ 0, sent when < 0; its
 * funding, when not zero, is a second row the same way. Record ids name the position
 * (`position:<id>`, `position:<id>:funding`, text-safe-ids.ts), so every row still names its source;
 * the row id is the same.
 */
export function futuresEntries(account: string, start: string, end: string): string {
  const id = `${textSafeIdSql('position', 'f.position_id')} || r.suffix`;
  return `SELECT f.updated_time, ${id} COLLATE "C",
             CASE WHEN r.value < 0 THEN -r.value END, CASE WHEN r.value < 0 THEN f.margin_coin END,
             CASE WHEN r.value >= 0 THEN r.value END, CASE WHEN r.value >= 0 THEN f.margin_coin END,
             NULL::numeric, NULL::text,
             CASE WHEN r.value >= 0 THEN 'futures-gain' ELSE 'futures-loss' END, NULL::integer,
             'futures', r.what || ' ' || f.symbol || coalesce(' ' || f.hold_side::text, ''),
             ${id}, '', NULL::text, ${id}, NULL::numeric, NULL::text, NULL::text, false
      FROM futures_position f
      CROSS JOIN LATERAL (VALUES
        ('realized P&L after fees', f.pnl + f.open_fee + f.close_fee, ''),
        ('funding', f.total_funding, ':funding')) AS r(what, value, suffix)
      WHERE f.account_id = ${account} AND f.updated_time >= ${start} AND f.updated_time < ${end}
        AND (r.suffix = '' OR f.total_funding <> 0)`;
}
