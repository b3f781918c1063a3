import { type Config, DEMO_SETTINGS_FILE, demoSettingsApplied, getConfig } from '../config/config.ts';
import { LedgerlineError } from '../errors/index.ts';
import { printable } from '../vocabulary/printable-text.ts';
import { checkServices, type Store } from './check-services.ts';
import { explainDatabaseFailure } from './database-failure.ts';
import { EXIT, exitCodeFor } from './exit-codes.ts';

export interface ToolOptions {
  /**
   * The stores the command uses, checked before it starts so that one that is
   * down is named in one line within seconds. Default: both, as every command
   * that builds a runtime connects to both.
   */
  needs?: readonly Store[];
  /**
   * Whether the command uses the database's tables, so that the database must
   * exist at this build's migrations before it starts. Default: whenever it
   * needs Postgres; only `migrate`, which makes it so, says false.
   */
  migrated?: boolean;
  /** Whether the demo's settings file may supply variables (see getConfig); the demo says false. */
  demoSettings?: boolean;
}

export interface ToolInput<I> extends ToolOptions {
  /**
   * Parses the command's arguments, throwing their ValidationError, before any store is checked:
   * a bad argument is named as such on a machine whose database is down or not migrated yet.
   */
  input: () => I;
}

/**
 * Runs a command-line tool: a LedgerlineError (bad config, bad argument, a
 * store down or not migrated, failed work) becomes one line on stderr (control
 * characters escaped: src/vocabulary/printable-text.ts), with no stack trace, and the exit code
 * its class decides (src/cli/exit-codes.ts); so does Postgres lost while the
 * command runs. Anything else unexpected is printed in full with exit code 1.
 */
export async function runTool(main: (config: Config) => Promise<void>, options?: ToolOptions): Promise<void>;
export async function runTool<I>(
  main: (config: Config, input: I) => Promise<void>,
  options: ToolInput<I>,
): Promise<void>;
export async function runTool<I>(
  main: (config: Config, input: I | undefined) => Promise<void>,
  options: ToolOptions & Partial<ToolInput<I>> = {},
): Promise<void> {
  let config: Config | undefined;
  try {
    config = getConfig({ demoSettings: options.demoSettings ?? true });
    const demo = demoSettingsApplied();
    // Said to a person at a terminal only: scripts get the same settings without a line to parse.
    if (demo && process.stderr.isTTY) {
      process.stderr.write(
        `(${demo} from ${DEMO_SETTINGS_FILE}, written by npm run demo; delete it to leave the demo)\n`,
      );
    }
    const input = options.input?.();
    const needs = options.needs ?? ['postgres', 'redis'];
    await checkServices(config, needs, { migrated: options.migrated ?? needs.includes('postgres') });
    await main(config, input);
  } catch (error) {
    const known =
      error instanceof LedgerlineError ? error : config ? await explainDatabaseFailure(error, config) : undefined;
    if (known) {
      // Messages may quote the exchange or a file name: one line, whatever they hold.
      process.stderr.write(`${printable(known.toOneLine())}\n`);
      process.exitCode = exitCodeFor(known);
      return;
    }
    process.exitCode = EXIT.failed;
    throw error;
  }
}
