import type { AccountSummary } from '../accounts/account-service.ts';
import { ValidationError } from '../errors/index.ts';
import { planWindows, type TimeWindow } from '../exchange/index.ts';
import { type Stream, type StreamChoice, streamDefinition, streamsOf } from '../streams/registry.ts';
import { uncoveredParts } from './coverage/uncovered.ts';
import type { WindowKey } from './coverage/window-store.ts';
import { formatInstant } from './time-arguments.ts';

export interface BackfillPlan {
  windows: WindowKey[];
  /** What was adjusted or left out, for the operator. */
  notes: string[];
  /** Grid windows of the range that done windows already cover wholly: nothing to read there. */
  alreadyCovered?: number;
  /**
   * Grid windows done windows cover in part only: their rest is planned (typically each history's
   * newest window, read up to an earlier run's "now", read on to this one's).
   */
  partlyCovered?: number;
}

/** A stream's coverage (its done windows merged, oldest first), by stream and scope. */
export type CoverageOf = (stream: Stream, scope: string) => readonly TimeWindow[];

/**
 * Turns a backfill request into the windows to read, or a ValidationError
 * before anything is written or enqueued. With an explicit stream the range
 * must be servable; with `all`, each stream is fitted to what the exchange
 * can serve and the adjustments are reported.
 *
 * Windows lie on the stream's grid (`planWindows`); with `coverage`, what done
 * windows already hold is left out, so a range that overlaps earlier reads
 * (any `--from`, old windows cut from another `--from` included) reads only
 * the part not covered. Without it (`--refetch`) the whole range is read.
 */
export function planBackfill(
  account: AccountSummary,
  choice: StreamChoice,
  from: number,
  to: number,
  now: number,
  coverage?: CoverageOf,
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
  const explicit = choice !== 'all';
  const windows: WindowKey[] = [];
  let alreadyCovered = 0;
  let partlyCovered = 0;
  for (const stream of streamsOf(choice)) {
    const definition = streamDefinition(stream);
    const eligibility = definition.eligible(account);
    if (!eligibility.eligible) {
      if (explicit) throw new ValidationError('--stream', `${stream} needs ${eligibility.needs}`, stream);
      notes.push(`${stream} left out: ${eligibility.because}`);
      continue;
    }
    let start = from;
    const horizon = definition.horizon;
    const oldest = horizon?.oldestReadable(now);
    if (horizon && oldest !== undefined && from < oldest) {
      if (explicit) {
        throw new ValidationError(
          '--from',
          `${stream} can only be read for the last ${horizon.days} days (the exchange's ${horizon.name}): use ${formatInstant(oldest)} or later`,
          formatInstant(from),
        );
      }
      if (to <= oldest) {
        notes.push(`${stream} left out: the range is older than the ${horizon.name}`);
        continue;
      }
      notes.push(`${stream} start at the ${horizon.name}, ${formatInstant(oldest)}`);
      start = oldest;
    }
    for (const window of planWindows(definition.endpoint, start, to, { now })) {
      for (const scope of definition.scopes) {
        const parts = coverage ? uncoveredParts(window, coverage(stream, scope)) : [window];
        if (parts.length === 0) alreadyCovered += 1;
        else if (parts.reduce((n, p) => n + p.end - p.start, 0) < window.end - window.start) partlyCovered += 1;
        for (const part of parts) windows.push({ accountId: account.id, stream, scope, ...part });
      }
    }
  }
  return { windows, notes, alreadyCovered, partlyCovered };
}
