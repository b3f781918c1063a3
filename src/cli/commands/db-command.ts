import type { Command } from 'commander';

import { databaseName } from '../../db/ensure-database.ts';
import { migrateDatabase } from '../../db/migrations.ts';
import { runTool } from '../run-tool.ts';

export function registerDbCommands(program: Command): void {
  program
    .command('migrate')
    .description('create the database if missing and apply pending migrations (same as npm run db:migrate)')
    .action(() =>
      runTool(
        async (config) => {
          const applied = await migrateDatabase(config.databaseUrl);
          const db = databaseName(config.databaseUrl);
          if (applied.length === 0) console.log(`database ${db} is up to date: no migration applied`);
          else for (const name of applied) console.log(`applied ${name} to ${db}`);
        },
        // migrate is what makes the database ready: it only needs the server to answer.
        { needs: ['postgres'], migrated: false },
      ),
    );
}
