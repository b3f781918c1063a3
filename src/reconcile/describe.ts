import { DateTime } from 'luxon';

import type { Stream } from '../streams/registry.ts';

/** An instant as an operator reads it: ISO 8601 UTC, milliseconds only when there are some. */
export function instant(ms: number): string {
  return DateTime.fromMillis(ms, { zone: 'utc' }).toISO({ suppressMilliseconds: true }) ?? String(ms);
}

/** `spot` or `positions USDT-FUTURES`. */
export function streamName(stream: Stream, scope: string): string {
  return scope === '' ? stream : `${stream} ${scope}`;
}

/** `spot [2026-01-01T00:00:00Z, 2026-01-31T00:00:00Z)`: half-open, as the ledger stores windows. */
export function windowName(window: { stream: Stream; scope: string; start: number; end: number }): string {
  return `${streamName(window.stream, window.scope)} [${instant(window.start)}, ${instant(window.end)})`;
}
