import { ALL_ENDPOINTS } from '../streams/endpoints.ts';
import type { ShapeDriftRow } from './shape-drift-store.ts';
import { formatInstant } from './time-arguments.ts';

/** Fields of the answer's envelope: counted per answer, every other field per record. */
const ENVELOPE_FIELDS = new Set(['code', 'msg', 'message', 'requestTime', 'data']);

/** An endpoint as operators read it: the last part of its path (`history-position`). */
export function endpointLabel(name: string): string {
  const path = ALL_ENDPOINTS.find((endpoint) => endpoint.name === name)?.path;
  return path ? path.slice(path.lastIndexOf('/') + 1) : name;
}

/**
 * One line per (endpoint, field, kind), for `status` and the alerts:
 * "history-position: posMode absent in 1,204 records since 2026-03-01T02:00:00Z".
 */
export function shapeDriftLine(row: ShapeDriftRow): string {
  const count = row.count.toLocaleString('en-US');
  const what = row.kind === 'refused' || ENVELOPE_FIELDS.has(row.field) ? 'answer' : 'record';
  const unit = `${count} ${what}${row.count === 1 ? '' : 's'}`;
  const since = `since ${formatInstant(row.firstSeenAt.getTime())}`;
  const label = endpointLabel(row.endpoint);
  switch (row.kind) {
    case 'absent':
      return `${label}: ${row.field} absent in ${unit} ${since}`;
    case 'unlisted':
      return `${label}: unlisted field ${row.field} in ${unit} ${since}`;
    case 'type':
      return `${label}: ${row.field} not of its documented type in ${unit} ${since}`;
    case 'refused':
      return (
        `${label}: ${unit} REFUSED for ${row.field} (a core field missing or garbled, or a cursor that ` +
        `does not advance) ${since}, last ${formatInstant(row.lastSeenAt.getTime())}: their windows failed`
      );
  }
}
