import type { Command } from 'commander';

import { runTool } from '../run-tool.ts';

export function registerWebCommand(program: Command): void {
  program
    .command('web')
    .description("serve the accountants' page (sign in with LEDGERLINE_WEB_TOKEN) and the queue dashboard")
    .option('--no-worker', 'do not run an export worker in this process')
    .action((options: { worker: boolean }) =>
      runTool(async (config) => {
        // Loaded on demand: the other commands need neither fastify nor bull-board.
        const { startWeb } = await import('../../http/start-web.ts');
        await startWeb(config, { worker: options.worker });
      }),
    );
}
