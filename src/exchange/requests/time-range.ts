import type { z } from 'zod';
import { DAY_MS } from './primitives.ts';

export interface TimeRangeRule {
  /** Widest allowed `endTime - startTime`, in days. */
  maxDays: number;
  /** When set, `startTime` must not be older than this many days before `now()` (history-position). */
  horizonDays?: number;
  now?: () => number;
}

interface Times {
  startTime?: string | undefined;
  endTime?: string | undefined;
}

/**
 * The cross-field rules of the windowed endpoints: startTime <= endTime, the
 * range at most maxDays (both bounds inclusive ms, as the exchange reads them),
 * and the horizon. Runs on already-validated decimal strings.
 */
export function checkTimeRange(rule: TimeRangeRule) {
  return (value: Times, ctx: z.RefinementCtx): void => {
    const start = value.startTime === undefined ? undefined : Number(value.startTime);
    const end = value.endTime === undefined ? undefined : Number(value.endTime);
    if (start !== undefined && end !== undefined) {
      if (start > end) {
        ctx.addIssue({ code: 'custom', path: ['startTime'], message: 'must not be after endTime' });
      } else if (end - start > rule.maxDays * DAY_MS) {
        ctx.addIssue({
          code: 'custom',
          path: ['endTime'],
          message: `must be at most ${rule.maxDays} days after startTime`,
        });
      }
    }
    if (rule.horizonDays !== undefined && start !== undefined) {
      const oldest = (rule.now ?? Date.now)() - rule.horizonDays * DAY_MS;
      if (start < oldest) {
        ctx.addIssue({
          code: 'custom',
          path: ['startTime'],
          message: `must not be older than ${rule.horizonDays} days before now (only the last 3 months can be queried)`,
        });
      }
    }
  };
}
