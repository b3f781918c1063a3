import type pg from 'pg';
import type { AccountSummary } from '../accounts/account-service.ts';
import { planWindows, positionHorizon } from '../exchange/index.ts';
import type { BackfillPlan } from './backfill-plan.ts';
import { coveredRanges, type Stream, type WindowKey } from './coverage/window-store.ts';
import { STREAM_DEFINITIONS } from './streams.ts';
import { formatInstant } from './time-arguments.ts';

export interface SyncSettings {
  /** Re-read before the end of covered data: late changes (a transfer that settles) land as updates. */
  lookbackMs: Readonly<Record<Stream, number>>;
  /** Where a stream never synced before starts, in days before now. */
  firstDays: number;
}

const DAY = 86_400_000;

/**
 * The windows of an incremental sync: for each stream and scope, from the end
 * of its covered data (less the lookback) to now. A stream never synced
 * starts `firstDays` ago; positions never start before the 3-month horizon,
 * and a gap that fell behind it is reported, since that data is gone.
 */
export async function planIncrementalSync(
  pool: pg.Pool,
  account: AccountSummary,
  streams: readonly Stream[],
  now: number,
  settings: SyncSettings,
): Promise<BackfillPlan> {
  const windows: WindowKey[] = [];
  const notes: string[] = [];
  for (const stream of streams) {
    if (stream === 'transfers' && !account.isBrokerParent) {
      notes.push('transfers left out: the account is not a broker parent');
      continue;
    }
    const definition = STREAM_DEFINITIONS[stream];
    for (const scope of definition.scopes) {
      const covered = await coveredRanges(pool, { accountId: account.id, stream, scope });
      const coveredEnd = covered.at(-1)?.end;
      let from = coveredEnd === undefined ? now - settings.firstDays * DAY : coveredEnd - settings.lookbackMs[stream];
      if (stream === 'positions') {
        const horizon = positionHorizon(now);
        if (coveredEnd !== undefined && coveredEnd < horizon) {
          notes.push(
            `positions ${scope}: not synced since ${formatInstant(coveredEnd)}; the exchange no longer serves ` +
              `${formatInstant(coveredEnd)} .. ${formatInstant(horizon)}`,
          );
        }
        from = Math.max(from, horizon);
      }
      if (from >= now) continue;
      for (const window of planWindows(definition.endpoint, from, now, { now })) {
        windows.push({ accountId: account.id, stream, scope, start: window.from, end: window.to });
      }
    }
  }
  return { windows, notes };
}
