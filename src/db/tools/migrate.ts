import { databaseName } from '../ensure-database.ts';
import { migrateDatabase } from '../migrations.ts';
import { runTool } from './run-tool.ts';

await runTool(async (config) => {
  const applied = await migrateDatabase(config.databaseUrl);
  const db = databaseName(config.databaseUrl);
  if (applied.length === 0) console.log(`database ${db} is up to date: no migration applied`);
  else for (const name of applied) console.log(`applied ${name} to ${db}`);
});
