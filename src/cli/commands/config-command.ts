import { createHash } from 'node:crypto';

import type { Command } from 'commander';

import { DEVELOPMENT_MASTER_KEY } from '../../config/env-schema.ts';
import { runTool } from '../run-tool.ts';

export function registerConfigCommands(program: Command): void {
  program
    .command('config')
    .description('validate the configuration and print it (secrets masked)')
    .action(() =>
      runTool(
        async (config) => {
          const url = new URL(config.databaseUrl);
          if (url.password) url.password = '****';
          console.log(`environment   ${config.env}`);
          console.log(`database      ${url.toString()}`);
          console.log(`redis         ${config.redisUrl.replace(/:[^:@/]+@/, ':****@')}`);
          // A fingerprint tells two keys apart without revealing any of their bytes.
          const fingerprint = createHash('sha256').update(config.masterKey).digest('hex').slice(0, 12);
          const development = config.masterKey.toString('hex') === DEVELOPMENT_MASTER_KEY ? ' (development key)' : '';
          console.log(`master key    fingerprint ${fingerprint}${development}`);
          console.log(`log level     ${config.logLevel}`);
          console.log(`export dir    ${config.exportDir}`);
        },
        { needs: [] },
      ),
    );
}
