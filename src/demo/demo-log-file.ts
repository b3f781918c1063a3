import { readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { pino } from 'pino';

import { createRootLogger, type Logger } from '../logging/logger.ts';

/** The demo's worker log: its in-process workers' and export threads' warnings and errors. */
export function demoLogPath(pid = process.pid): string {
  return path.join(os.tmpdir(), `ledgerline-demo-${pid}.log`);
}

/**
 * The demo's terminal is read by a newcomer, piped to a file or not: what its workers log (JSON
 * lines, at warn and above) goes to the temp folder, never between the demo's own lines. Every
 * thread of the demo appends to the same file.
 */
export function demoLogger(file: string): Logger {
  return createRootLogger({ level: 'warn', destination: pino.destination({ dest: file, sync: true, append: true }) });
}

/**
 * When the demo ends: a log with nothing in it is removed; one that holds lines is kept and named
 * with how many it holds (a failed demo's is named whatever it holds), so a warning is never lost
 * and never printed raw.
 */
export function settleDemoLog(file: string, succeeded: boolean): string | undefined {
  const size = statSync(file, { throwIfNoEntry: false })?.size ?? 0;
  if (size === 0 && succeeded) {
    rmSync(file, { force: true });
    return undefined;
  }
  const lines = size === 0 ? 0 : readFileSync(file, 'utf8').split('\n').filter(Boolean).length;
  return `worker logs: ${lines} warning or error line(s) kept in ${file}`;
}
