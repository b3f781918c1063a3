import { type Config, getConfig } from '../config/config.ts';
import { LedgerlineError } from '../errors/index.ts';

/**
 * Runs a command-line tool: a LedgerlineError (bad config, bad argument)
 * becomes one line on stderr and exit code 2, with no stack trace; anything
 * unexpected is printed in full with exit code 1.
 */
export async function runTool(main: (config: Config) => Promise<void>): Promise<void> {
  try {
    await main(getConfig());
  } catch (error) {
    if (error instanceof LedgerlineError) {
      process.stderr.write(`${error.toOneLine()}\n`);
      process.exitCode = 2;
      return;
    }
    throw error;
  }
}
