import { ValidationError } from '../errors/index.ts';

/**
 * How much of the stored history a reconciliation re-reads from the exchange
 * to compare window counts: nothing, the windows finished recently (the
 * nightly default), or every window.
 */
export const RECOUNT_MODES = ['none', 'recent', 'all'] as const;
export type RecountMode = (typeof RECOUNT_MODES)[number];

/** `recent` re-counts the windows finished within this many days. */
export const RECENT_RECOUNT_DAYS = 3;

export function parseRecountMode(value: unknown, field = '--recount'): RecountMode {
  if (typeof value === 'string' && (RECOUNT_MODES as readonly string[]).includes(value)) return value as RecountMode;
  throw new ValidationError(field, `must be one of ${RECOUNT_MODES.join(', ')}`, value);
}
