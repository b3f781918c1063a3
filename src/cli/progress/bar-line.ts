/**
 * One stream's progress bar as a line that fits the terminal. cli-progress cuts a line at the
 * terminal's width, so on 80 columns the tail of each bar read `~13` or `1m 09s elap`: here the
 * line is built from what matters most to what matters least (name, bar, windows, ETA, then the
 * requests left, rows, rows/s, elapsed, retries, last error) and a part is shown whole or not at
 * all. Pure.
 */
export interface BarParts {
  /** The stream's name, padded so the bars line up. */
  readonly label: string;
  /** 0..1. */
  readonly fraction: number;
  readonly barSize: number;
  readonly value: number;
  readonly total: number;
  /** `ETA 38s, waiting for its 1/s budget`, `waiting for a worker`, `done`. */
  readonly status: string;
  /** The optional parts, most wanted first, each shown whole or dropped with those after it. */
  readonly details: readonly string[];
}

const COMPLETE = '█';
const INCOMPLETE = '░';

export function barLine(parts: BarParts, columns: number): string {
  const filled = Math.round(Math.min(1, Math.max(0, parts.fraction)) * parts.barSize);
  const bar = COMPLETE.repeat(filled) + INCOMPLETE.repeat(parts.barSize - filled);
  // One column spare: a line exactly as wide as the terminal wraps on some of them.
  const room = Math.max(20, columns - 1);
  let line = ` ${parts.label} |${bar}| ${parts.value}/${parts.total} windows | ${parts.status}`;
  if (line.length > room) return `${line.slice(0, room - 1)}…`;
  for (const detail of parts.details) {
    const next = `${line} | ${detail}`;
    if (next.length > room) break;
    line = next;
  }
  return line;
}
