import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { pino } from 'pino';

import type { Config } from '../config/config.ts';
import { createRootLogger, setRootLogger } from '../logging/logger.ts';

/**
 * While progress bars draw on a terminal, an in-process worker's log lines (a dozen a window at
 * INFO) would be written between them and scroll them away: they go to a file instead, named on
 * one line before the bars start. Piped or in CI (no bars), logs stay on stderr as everywhere.
 * Call before the workers start: their loggers are made then. Returns the file, if any.
 */
export function workerLogsToFileWhileBarsDraw(config: Pick<Config, 'logLevel'>, command: string): string | undefined {
  if (!process.stderr.isTTY || config.logLevel === 'silent') return undefined;
  return logToFile(config, command);
}

/**
 * When the command ends: a run that succeeded needs its worker log no more (a backfill's is
 * ~200 KB, one a run, in the temp folder), so it is removed; a failed or interrupted run's is kept
 * and named again, after the bars, for whoever looks into it.
 */
export function settleWorkerLog(file: string | undefined, succeeded: boolean): void {
  if (file === undefined) return;
  if (succeeded) rmSync(file, { force: true });
  else process.stderr.write(`worker logs kept: ${file}\n`);
}

function logToFile(config: Pick<Config, 'logLevel'>, command: string): string {
  const file = path.join(os.tmpdir(), `ledgerline-${command}-${process.pid}.log`);
  setRootLogger(
    createRootLogger({ level: config.logLevel, destination: pino.destination({ dest: file, sync: true }) }),
  );
  process.stderr.write(`worker logs: ${file}\n`);
  return file;
}
