import type { z } from 'zod';

import { DAY_MS } from './primitives.ts';

export interface TimeRangeRule {
  /** Widest allowed `endTime - startTime`, in days. */
  maxDays: number;
  /**
   * The exchange reads a missing endTime as "now" (history-position,
   * spot-record): a lone startTime is then checked against now. Needs `now`.
   */
  missingEndIsNow?: boolean;
  /** When set, `startTime` and `endTime` must not be older than this many days before `now()` (history-position). */
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
    const now = (rule.now ?? Date.now)();
    const start = value.startTime === undefined ? undefined : Number(value.startTime);
    const givenEnd = value.endTime === undefined ? undefined : Number(value.endTime);
    const end = givenEnd ?? (rule.missingEndIsNow ? now : undefined);
    const endName = givenEnd === undefined ? 'now (endTime absent)' : 'endTime';
    if (start !== undefined && end !== undefined) {
      if (start > end) {
        ctx.addIssue({ code: 'custom', path: ['startTime'], message: `must not be after ${endName}` });
      } else if (end - start > rule.maxDays * DAY_MS) {
        ctx.addIssue({
          code: 'custom',
          path: [givenEnd === undefined ? 'startTime' : 'endTime'],
          message:
            givenEnd === undefined
              ? `must be at most ${rule.maxDays} days before now when endTime is absent`
              : `must be at most ${rule.maxDays} days after startTime`,
        });
      }
    }
    if (rule.horizonDays !== undefined) {
      const oldest = now - rule.horizonDays * DAY_MS;
      const beyondHorizon = `must not be older than ${rule.horizonDays} days before now (the exchange serves no older records)`;
      if (start !== undefined && start < oldest) {
        ctx.addIssue({ code: 'custom', path: ['startTime'], message: beyondHorizon });
      } else if (givenEnd !== undefined && givenEnd < oldest) {
        ctx.addIssue({ code: 'custom', path: ['endTime'], message: beyondHorizon });
      }
    }
  };
}
