import { planWindows, positionHorizon } from '../exchange/index.ts';
import { ValidationError } from '../errors/index.ts';
import type { AccountSummary } from '../accounts/account-service.ts';
import type { Stream, WindowKey } from './coverage/window-store.ts';
import { STREAM_DEFINITIONS, STREAMS } from './streams.ts';
import { formatInstant } from './time-arguments.ts';

export type StreamChoice = Stream | 'all';

export function parseStreamChoice(value: string): StreamChoice {
  if (value === 'all' || (STREAMS as readonly string[]).includes(value)) return value as StreamChoice;
  throw new ValidationError('--stream', `must be one of ${[...STREAMS, 'all'].join(', ')}`, value);
}

export interface BackfillPlan {
  windows: WindowKey[];
  /** What was adjusted or left out, for the operator. */
  notes: string[];
}

/**
 * Turns a backfill request into the windows to read, or a ValidationError
 * before anything is written or enqueued. With an explicit stream the range
 * must be servable; with `all`, each stream is fitted to what the exchange
 * can serve and the adjustments are reported.
 */
export function planBackfill(
  account: AccountSummary,
  choice: StreamChoice,
  from: number,
  to: number,
  now: number,
): BackfillPlan {
  const notes: string[] = [];
  if (from >= to)
    throw new ValidationError('--from', `must be before --to (${formatInstant(to)})`, formatInstant(from));
  if (from > now) throw new ValidationError('--from', 'must not be in the future', formatInstant(from));
  if (to > now) {
    // Covering the future would mark windows done before their records exist.
    notes.push(`--to ${formatInstant(to)} is in the future: reading up to now (${formatInstant(now)})`);
    to = now;
  }
  const streams = choice === 'all' ? STREAMS : [choice];
  const windows: WindowKey[] = [];
  for (const stream of streams) {
    let start = from;
    if (stream === 'transfers' && !account.isBrokerParent) {
      if (choice !== 'all') {
        throw new ValidationError(
          '--stream',
          'transfers needs a broker parent account (register it with --broker)',
          stream,
        );
      }
      notes.push('transfers left out: the account is not a broker parent');
      continue;
    }
    if (stream === 'positions') {
      const horizon = positionHorizon(now);
      if (from < horizon) {
        if (choice !== 'all') {
          throw new ValidationError(
            '--from',
            `positions can only be read for the last 90 days (the exchange's 3-month horizon): use ${formatInstant(horizon)} or later`,
            formatInstant(from),
          );
        }
        if (to <= horizon) {
          notes.push('positions left out: the range is older than the 3-month horizon');
          continue;
        }
        notes.push(`positions start at the 3-month horizon, ${formatInstant(horizon)}`);
        start = horizon;
      }
    }
    const definition = STREAM_DEFINITIONS[stream];
    for (const window of planWindows(definition.endpoint, start, to, { now })) {
      for (const scope of definition.scopes) {
        windows.push({ accountId: account.id, stream, scope, start: window.from, end: window.to });
      }
    }
  }
  return { windows, notes };
}
