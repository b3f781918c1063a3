import { DateTime } from 'luxon';

/**
 * The instants a walk stores its lot state at: every start of a calendar month in the period's
 * zone that it passes, plus `also` (the period's own start and end, for periods that are not
 * months), all in (afterMs, untilMs]. A month's export then finds a checkpoint at its start
 * whichever month is asked next, and one at its own end serves the following month.
 */
export function checkpointInstants(options: {
  readonly afterMs: number;
  readonly untilMs: number;
  readonly tz: string;
  readonly also: readonly number[];
}): number[] {
  const { afterMs, untilMs, tz } = options;
  const instants = new Set<number>();
  if (untilMs <= afterMs) return [];
  let month = DateTime.fromMillis(afterMs, { zone: tz }).startOf('month').plus({ months: 1 });
  while (month.toMillis() <= untilMs) {
    instants.add(month.toMillis());
    month = month.plus({ months: 1 });
  }
  for (const ms of options.also) if (ms > afterMs && ms <= untilMs) instants.add(ms);
  return [...instants].sort((a, b) => a - b);
}
