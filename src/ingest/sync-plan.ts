import type pg from 'pg';

import type { AccountSummary } from '../accounts/account-service.ts';
import { planWindows } from '../exchange/index.ts';
import type { LookbackSettings } from '../streams/kit/stream-definition.ts';
import { type Stream, streamDefinition } from '../streams/registry.ts';
import type { BackfillPlan } from './backfill-plan.ts';
import { coveredRanges } from './coverage/coverage-summary.ts';
import type { WindowKey } from './coverage/window-store.ts';
import { formatInstant } from './time-arguments.ts';

export interface SyncSettings extends LookbackSettings {
  /** Where a stream never synced before starts, in days before now. */
  firstDays: number;
}

const DAY = 86_400_000;

/**
 * The windows of an incremental sync: for each stream and scope, from the end
 * of its covered data (less the stream's lookback) to now. A stream never
 * synced starts `firstDays` ago; a stream with a horizon never starts before
 * it, and a gap that fell behind it is reported, since that data is gone.
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
    const definition = streamDefinition(stream);
    const eligibility = definition.eligible(account);
    if (!eligibility.eligible) {
      notes.push(`${stream} left out: ${eligibility.because}`);
      continue;
    }
    for (const scope of definition.scopes) {
      const covered = await coveredRanges(pool, { accountId: account.id, stream, scope });
      const coveredEnd = covered.at(-1)?.end;
      let from =
        coveredEnd === undefined ? now - settings.firstDays * DAY : coveredEnd - definition.lookbackMs(settings);
      const oldest = definition.horizon?.oldestReadable(now);
      if (oldest !== undefined) {
        if (coveredEnd !== undefined && coveredEnd < oldest) {
          notes.push(
            `${stream} ${scope}: not synced since ${formatInstant(coveredEnd)}; the exchange no longer serves ` +
              `${formatInstant(coveredEnd)} .. ${formatInstant(oldest)}`,
          );
        }
        from = Math.max(from, oldest);
      }
      if (from >= now) continue;
      for (const window of planWindows(definition.endpoint, from, now, { now })) {
        windows.push({ accountId: account.id, stream, scope, ...window });
      }
    }
  }
  return { windows, notes };
}
