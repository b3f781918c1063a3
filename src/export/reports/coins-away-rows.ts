import type pg from 'pg';

import { coinsAway, DEFAULT_COINS_AWAY_DAYS } from '../../accounting/gains/coins-away.ts';
import { type ReportColumn, type ReportParams, type ReportRow, REVIEW_PREFIX } from '../report-definition.ts';

/** The review flag of a move away not back after COINS_AWAY_DAYS and not decided: the manifest counts them. */
export const COINS_AWAY = 'coins-away';

/**
 * A gains summary's rows for the coins away that the accountant has not decided on (docs/reports.md,
 * "Coins away"): one row per move (level `coins-away`) still away at the period's end after at
 * least COINS_AWAY_DAYS days, flagged `review:coins-away`, so the manifest's `review` counts them
 * beside the figures (which hold these coins as held: nothing is realized until a decision).
 * Cells by column name: the coin, the quantity where the summary has a quantity column, a note
 * naming the move, the method and currency columns; the rest empty. The period's end is the
 * instant the days are counted to, so a re-export gives the same file.
 */
export async function* coinsAwayRows(
  db: pg.ClientBase,
  params: ReportParams,
  columns: readonly ReportColumn[],
  settings: { readonly method: string; readonly currency: string },
): AsyncGenerator<ReportRow> {
  const days = params.coinsAwayDays ?? DEFAULT_COINS_AWAY_DAYS;
  const moves = await coinsAway(db, params.accountId, params.period.end, { days });
  for (const move of moves) {
    if (move.decision !== null || (params.coin !== undefined && move.coin !== params.coin)) continue;
    const note =
      `${move.quantity} ${move.coin} moved away (${move.spotTaxType}, spot record ${move.recordId}, ${move.movedAt}) ` +
      `not back after ${move.daysAway} days at the period's end (COINS_AWAY_DAYS ${days}): held in these figures ` +
      `until the accountant decides held, or lost at a date (ledgerline away-decision import)`;
    const cell: Record<string, string> = {
      level: COINS_AWAY,
      coin: move.coin,
      quantity: move.quantity,
      note,
      method: settings.method,
      currency: settings.currency,
      valuation_currency: settings.currency,
    };
    yield { cells: columns.map((column) => cell[column.header] ?? null), flag: `${REVIEW_PREFIX}${COINS_AWAY}` };
  }
}
