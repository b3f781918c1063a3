import { readFileSync } from 'node:fs';
import path from 'node:path';

import { Command } from 'commander';

import { PROJECT_ROOT } from '../config/project-root.ts';
import { registerAccountsCommands } from './commands/accounts-command.ts';
import { registerApikeysCommands } from './commands/apikeys-command.ts';
import { registerAwayDecisionCommands } from './commands/away-decision-command.ts';
import { registerBackfillCommand } from './commands/backfill-command.ts';
import { registerConfigCommands } from './commands/config-command.ts';
import { registerCostBasisCommands } from './commands/cost-basis-command.ts';
import { registerDbCommands } from './commands/db-command.ts';
import { registerDoctorCommand } from './commands/doctor-command.ts';
import { registerExportCommand } from './commands/export-command.ts';
import { registerOrdersCommands } from './commands/orders-command.ts';
import { registerPricesCommands } from './commands/prices-command.ts';
import { registerProceedsCommands } from './commands/proceeds-command.ts';
import { registerReconcileCommand } from './commands/reconcile-command.ts';
import { registerRunsCommand } from './commands/runs-command.ts';
import { registerStatusCommand } from './commands/status-command.ts';
import { registerSubaccountsCommands } from './commands/subaccounts-command.ts';
import { registerSyncCommand } from './commands/sync-command.ts';
import { registerWebCommand } from './commands/web-command.ts';
import { registerWorkerCommand } from './commands/worker-command.ts';
import { refuseUnknownOptions } from './unknown-options.ts';

/** The version in package.json, beside src/ in a source tree and above dist/ in a compiled one. */
function packageVersion(): string {
  const text = readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}

/**
 * `ledgerline <command>`: each command lives in its own file under commands/
 * and registers itself here.
 */
const program = new Command('ledgerline')
  .description('Tax-grade, permanent copy of an exchange account history, reconciled and exported for accountants.')
  .version(packageVersion(), '-V, --version', 'print the version of ledgerline')
  // A usage error is one line (commander's "error: ..."), then where to look, not the whole help.
  .showHelpAfterError('see --help')
  .exitOverride((error) => {
    // commander's own usage errors: one line, non-zero, no stack.
    process.exit(error.exitCode === 0 ? 0 : 2);
  });

registerConfigCommands(program);
registerDbCommands(program);
registerDoctorCommand(program);
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
registerPricesCommands(program);
registerCostBasisCommands(program);
registerProceedsCommands(program);
registerAwayDecisionCommands(program);

refuseUnknownOptions(program, process.argv.slice(2));
await program.parseAsync(process.argv);
