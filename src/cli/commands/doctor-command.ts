import type { Command } from 'commander';

import { doctorExitCode, runDoctorChecks } from '../doctor-checks.ts';
import { plainTable, printJson } from '../plain-table.ts';
import { runTool } from '../run-tool.ts';

export function registerDoctorCommand(program: Command): void {
  program
    .command('doctor')
    .description(
      "check everything ledgerline needs, in one table: Postgres, migrations, Redis, the master key, each account's exchange and credentials, the tests' tools",
    )
    .option('--json', 'one JSON object on stdout: { ok, checks: [{ check, status, detail }] }')
    .action((options: { json?: boolean }) =>
      runTool(
        async (config) => {
          const checks = await runDoctorChecks(config);
          const exit = doctorExitCode(checks);
          if (options.json) {
            printJson({
              ok: exit === 0,
              checks: checks.map(({ check, status, detail }) => ({ check, status, detail })),
            });
          } else {
            console.log(
              plainTable(checks.map((c) => ({ CHECK: c.check, STATUS: c.status.toUpperCase(), DETAIL: c.detail }))),
            );
          }
          process.exitCode = exit;
        },
        // The doctor reports a store that is down or not migrated as a line of its table.
        { needs: [], migrated: false },
      ),
    );
}
