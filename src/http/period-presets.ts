import { DateTime } from 'luxon';

import { ValidationError } from '../errors/index.ts';

/** The periods accountants ask for most, offered beside "custom dates" on the request form. */
export const PERIOD_PRESETS = [
  { value: 'custom', label: 'the dates below' },
  { value: 'previous-month', label: 'previous month' },
  { value: 'previous-quarter', label: 'previous quarter' },
  { value: 'year-to-date', label: 'this year so far' },
  { value: 'previous-year', label: 'previous year' },
] as const;

export type PeriodPreset = (typeof PERIOD_PRESETS)[number]['value'];

const isPreset = (value: string): value is PeriodPreset => PERIOD_PRESETS.some((p) => p.value === value);

/**
 * A preset's first and last day (YYYY-MM-DD, both included) in `tz`, as of `now`; undefined for
 * `custom` (the form's dates count). "This year so far" ends yesterday: today is not over yet.
 */
export function presetDates(
  preset: string | undefined,
  now: Date,
  tz: string,
): { from: string; to: string } | undefined {
  if (preset === undefined || preset === '') return undefined;
  if (!isPreset(preset)) {
    throw new ValidationError('period', `must be one of ${PERIOD_PRESETS.map((p) => p.value).join(', ')}`, preset);
  }
  const today = DateTime.fromJSDate(now, { zone: tz }).startOf('day');
  const span = (first: DateTime, last: DateTime) => ({ from: first.toISODate()!, to: last.toISODate()! });
  switch (preset) {
    case 'custom':
      return undefined;
    case 'previous-month': {
      const first = today.startOf('month').minus({ months: 1 });
      return span(first, first.endOf('month'));
    }
    case 'previous-quarter': {
      const first = today.startOf('quarter').minus({ quarters: 1 });
      return span(first, first.endOf('quarter'));
    }
    case 'year-to-date': {
      // On 1 January no day of the year is over yet: the year so far is then the previous year.
      const yesterday = today.minus({ days: 1 });
      return span(yesterday.startOf('year'), yesterday);
    }
    case 'previous-year': {
      const first = today.startOf('year').minus({ years: 1 });
      return span(first, first.endOf('year'));
    }
  }
}

/** The IANA time zones the browser may choose from, UTC first (Intl's list does not name it). */
export const TIME_ZONES: readonly string[] = ['UTC', ...Intl.supportedValuesOf('timeZone').filter((z) => z !== 'UTC')];
