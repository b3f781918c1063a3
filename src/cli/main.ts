import { Command } from 'commander';

import { registerAccountsCommands } from './commands/accounts-command.ts';
import { registerApikeysCommands } from './commands/apikeys-command.ts';
import { registerBackfillCommand } from './commands/backfill-command.ts';
import { registerConfigCommands } from './commands/config-command.ts';
import { registerDbCommands } from './commands/db-command.ts';
import { registerExportCommand } from './commands/export-command.ts';
import { registerOrdersCommands } from './commands/orders-command.ts';
import { registerReconcileCommand } from './commands/reconcile-command.ts';
import { registerRunsCommand } from './commands/runs-command.ts';
import { registerStatusCommand } from './commands/status-command.ts';
import { registerSubaccountsCommands } from './commands/subaccounts-command.ts';
import { registerSyncCommand } from './commands/sync-command.ts';
import { registerWebCommand } from './commands/web-command.ts';
import { registerWorkerCommand } from './commands/worker-command.ts';

/**
 * `ledgerline <command>`: each command lives in its own file under commands/
 * and registers itself here.
 */
const program = new Command('ledgerline')
  .description('Tax-grade, permanent copy of an exchange account history, reconciled and exported for accountants.')
  .showHelpAfterError()
  .exitOverride((error) => {
    // commander's own usage errors: one line, non-zero, no stack.
    process.exit(error.exitCode === 0 ? 0 : 2);
  });

registerConfigCommands(program);
registerDbCommands(program);
registerAccountsCommands(program);
registerWorkerCommand(program);
registerBackfillCommand(program);
registerSyncCommand(program);
registerStatusCommand(program);
registerExportCommand(program);
registerWebCommand(program);
registerSubaccountsCommands(program);
registerApikeysCommands(program);
registerOrdersCommands(program);
registerReconcileCommand(program);
registerRunsCommand(program);

await program.parseAsync(process.argv);
