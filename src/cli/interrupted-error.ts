import { TransientError } from '../errors/index.ts';

/**
 * Ctrl-C (SIGINT) or SIGTERM while a command watched its windows: what was read is kept, the rest
 * is read by running the same command again. Its line is the message alone (no class name): it
 * is what a person who pressed Ctrl-C expects to read, not an error report.
 */
export class InterruptedError extends TransientError {
  /** `unrecorded`: why the interrupted run is not in the run history (the database refused it), one line. */
  constructor(done: number, total: number, unrecorded?: string) {
    super(
      `interrupted: ${done} of ${total} windows done; run the same command to resume` +
        (unrecorded === undefined ? '' : ` (not in the run history: ${unrecorded})`),
      { code: 'INTERRUPTED' },
    );
  }

  override toOneLine(): string {
    return this.message;
  }
}

/**
 * No worker took the command's jobs within the wait: rather than wait forever, the command stops
 * (its windows stay queued: a worker started later reads them) and says how to start one.
 */
export class NoWorkerError extends TransientError {
  constructor(seconds: number) {
    super(
      `no worker took the jobs within ${seconds} s; start one with \`ledgerline worker\` (or pass --with-worker), ` +
        'then run the same command again to follow it',
      { code: 'NO_WORKER' },
    );
  }
}
