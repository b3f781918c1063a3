import type { Command } from 'commander';

import { QUEUE } from '../../../jobs/definitions.ts';
import { createRuntime } from '../../app/create-runtime.ts';
import { horizonWarnings, streamStatuses } from '../../ingest/coverage/stream-status.ts';
import { formatInstant } from '../../ingest/time-arguments.ts';
import { runTool } from '../run-tool.ts';

const when = (date: Date | null) => (date ? formatInstant(date.getTime()) : 'never');
const ranges = (list: { start: number; end: number }[]) =>
  list.length === 0 ? 'none' : list.map((r) => `${formatInstant(r.start)} .. ${formatInstant(r.end)}`).join(', ');

/**
 * A running worker registers the schedule again within WORKER_HEAL_INTERVAL_MS when Redis lost
 * it, so "not scheduled" is said only when no worker is there to do so.
 */
function nightlyLine(next: number | undefined, workers: number): string {
  if (next) return formatInstant(next);
  if (workers > 0)
    return 'being registered again by the running worker (Redis lost it), within WORKER_HEAL_INTERVAL_MS';
  return 'not scheduled (start `ledgerline worker`)';
}

export function registerStatusCommand(program: Command): void {
  program
    .command('status')
    .description('per account and stream: covered ranges, gaps, last success and failure, next run, horizon warnings')
    .option('--account <name>', 'only this account')
    .action((options: { account?: string }) =>
      runTool(async (config) => {
        const runtime = createRuntime(config);
        // One instant for every account and stream: gaps run up to it and warnings count from it.
        const now = Date.now();
        try {
          const accounts = options.account
            ? [await runtime.accounts.get(options.account)]
            : await runtime.accounts.list();
          const syncQueue = runtime.queues.get(QUEUE.sync);
          const nightly = await syncQueue.getJobScheduler('nightly-sync');
          console.log(`next nightly sync: ${nightlyLine(nightly?.next, await syncQueue.getWorkersCount())}`);
          if (accounts.length === 0) console.log('no accounts registered');
          for (const account of accounts) {
            console.log(`\naccount ${account.name} (uid ${account.uid})`);
            const statuses = await streamStatuses(runtime.pool, account.id, now);
            for (const warning of horizonWarnings(statuses, now)) console.log(`  WARNING: ${warning}`);
            for (const s of statuses) {
              console.log(`  ${s.stream}${s.scope ? ` ${s.scope}` : ''}`);
              console.log(`    covered       ${ranges(s.covered)}`);
              console.log(`    gaps          ${ranges(s.gaps)}`);
              if (s.failed.length > 0) console.log(`    failed        ${ranges(s.failed)}`);
              console.log(
                `    last success  ${when(s.lastSuccess)}${s.windowsOpen ? `; ${s.windowsOpen} window(s) open` : ''}`,
              );
              if (s.lastFailure) console.log(`    last failure  ${when(s.lastFailure.at)}: ${s.lastFailure.error}`);
            }
          }
        } finally {
          await runtime.close();
        }
      }),
    );
}
