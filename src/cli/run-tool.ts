import { type Config, getConfig } from '../config/config.ts';
import { LedgerlineError } from '../errors/index.ts';
import { checkServices, type Store } from './check-services.ts';
import { EXIT, exitCodeFor } from './exit-codes.ts';
import { printable } from './terminal-text.ts';

export interface ToolOptions {
  /**
   * The stores the command uses, checked before it starts so that one that is
   * down is named in one line within seconds. Default: both, as every command
   * that builds a runtime connects to both.
   */
  needs?: readonly Store[];
}

/**
 * Runs a command-line tool: a LedgerlineError (bad config, bad argument, a
 * store down, failed work) becomes one line on stderr (control characters
 * escaped: terminal-text.ts), with no stack trace,
 * and the exit code its class decides (src/cli/exit-codes.ts); anything
 * unexpected is printed in full with exit code 1.
 */
export async function runTool(main: (config: Config) => Promise<void>, options: ToolOptions = {}): Promise<void> {
  try {
    const config = getConfig();
    await checkServices(config, options.needs ?? ['postgres', 'redis']);
    await main(config);
  } catch (error) {
    if (error instanceof LedgerlineError) {
      // Messages may quote the exchange or a file name: one line, whatever they hold.
      process.stderr.write(`${printable(error.toOneLine())}\n`);
      process.exitCode = exitCodeFor(error);
      return;
    }
    process.exitCode = EXIT.failed;
    throw error;
  }
}
