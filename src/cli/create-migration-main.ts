import path from 'node:path';

import { createMigration } from '../db/tools/create-migration.ts';
import { ValidationError } from '../errors/index.ts';
import { runTool } from './run-tool.ts';

/*
 * `npm run db:migration:create -- <name>`: the script around createMigration. It lives with the
 * CLI, whose runner it uses (config, store checks, one-line errors), so that src/db builds on
 * nothing of the CLI's: the CLI imports src/db, never the reverse.
 */
await runTool(async (config) => {
  const name = process.argv[2];
  if (name === undefined) throw new ValidationError('name', 'usage: npm run db:migration:create -- <name>');
  const folder = await createMigration({ name, databaseUrl: config.databaseUrl });
  console.log(
    folder
      ? `wrote ${path.relative(process.cwd(), folder)}/migration.sql`
      : 'schema.prisma matches the migrations: nothing to write',
  );
});
