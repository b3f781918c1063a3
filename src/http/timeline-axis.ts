import { DateTime } from 'luxon';

export interface AxisTick {
  /** Where the tick stands, as a fraction of the span. */
  at: number;
  /** What it says ('' where a label would run past the end of the bar). */
  label: string;
  /** Its place among the ticks (0, 1, 2, ...), for hiding every other label on a narrow screen. */
  rank: number;
  /** So near the end that on a phone's width its label would run past the bar. */
  late: boolean;
}

/** Months per step, smallest first: months, quarters, half years, years, then years apart. */
const STEPS = [1, 3, 6, 12, 24, 60, 120] as const;
/** At most this many ticks: about 80 px apart on a 1000 px bar. */
const MAX_TICKS = 12;
/** A label starting this close to the end would run past it: only its mark is drawn. */
const LAST_LABEL_AT = 0.94;
/** The same on a phone (a label is about an eighth of a 360 px bar). */
const LATE_ON_PHONE_AT = 0.86;

function label(t: DateTime, step: number): string {
  if (step === 1) return t.toFormat('LLL yyyy');
  if (step === 3) return `Q${t.quarter} ${t.year}`;
  if (step === 6) return `H${t.month <= 6 ? 1 : 2} ${t.year}`;
  return String(t.year);
}

/**
 * The ticks of a timeline from `start` to `end` (UTC ms): the starts of calendar months, quarters,
 * half years or years inside the span, the smallest step that gives at most MAX_TICKS of them, each
 * labelled in words ("Mar 2026", "Q2 2026", "2026"). A span shorter than a month gets its first day
 * of the month, if any, else none.
 */
export function axisTicks(start: number, end: number): AxisTick[] {
  if (!(end > start)) return [];
  const first = DateTime.fromMillis(start, { zone: 'utc' }).startOf('month');
  const months = Math.ceil(DateTime.fromMillis(end, { zone: 'utc' }).diff(first, 'months').months);
  const step = STEPS.find((s) => months / s <= MAX_TICKS) ?? STEPS.at(-1)!;
  // Ticks on whole steps of the calendar (quarters start in Jan, Apr, Jul, Oct; years in January).
  let t = first.set({ month: Math.floor((first.month - 1) / Math.min(step, 12)) * Math.min(step, 12) + 1 });
  if (step > 12) t = t.set({ year: Math.floor(t.year / (step / 12)) * (step / 12) });
  const ticks: AxisTick[] = [];
  for (; t.toMillis() < end; t = t.plus({ months: step })) {
    if (t.toMillis() <= start) continue;
    const at = (t.toMillis() - start) / (end - start);
    ticks.push({
      at,
      label: at > LAST_LABEL_AT ? '' : label(t, step),
      rank: ticks.length,
      late: at > LATE_ON_PHONE_AT,
    });
  }
  return ticks;
}
