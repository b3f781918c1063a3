import type { Command } from 'commander';

import { createRuntime } from '../../../jobs/composition/create-runtime.ts';
import { upsertSchedules } from '../../../jobs/composition/schedules.ts';
import { startWorkers } from '../../../jobs/composition/workers.ts';
import { alertOnRuns } from '../../app/observability/alert-on-runs.ts';
import { createAlertSender } from '../../app/observability/alert-sender.ts';
import { redisAlertClaim } from '../../app/observability/heartbeat-claim.ts';
import { watchLostWindows } from '../../app/observability/lost-window-alerts.ts';
import { observeRunDurations } from '../../app/observability/observe-runs.ts';
import { watchShapeDrift } from '../../app/observability/shape-drift-alerts.ts';
import { startMetricsServer } from '../../app/observability/start-metrics-server.ts';
import { watchStorageAlarm } from '../../app/observability/storage-alerts.ts';
import { startSuccessHeartbeat } from '../../app/observability/success-heartbeat.ts';
import { exchangeNow } from '../../app/services/exchange-now.ts';
import { startHealing } from '../../app/services/heal.ts';
import { resumeUnfinishedActions } from '../../app/services/resume-actions.ts';
import { ValidationError } from '../../errors/index.ts';
import { StorageAlarm } from '../../ingest/coverage/storage-alarm.ts';
import { logger } from '../../logging/logger.ts';
import { runTool } from '../run-tool.ts';

function parseConcurrency(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 64)
    throw new ValidationError('--concurrency', 'must be a whole number from 1 to 64', value);
  return n;
}

export function registerWorkerCommand(program: Command): void {
  program
    .command('worker')
    .description('run the job processors until SIGINT or SIGTERM (then finish or release the current page and exit)')
    .option('--concurrency <n>', 'jobs processed at once (default: WORKER_CONCURRENCY)')
    .action((options: { concurrency?: string }) =>
      runTool(async (config) => {
        const concurrency = parseConcurrency(options.concurrency, config.workerConcurrency);
        const log = logger('worker');
        // Listened for before anything starts: the probes answer ready while the start-up goes on,
        // and a SIGTERM then (an orchestrator stopping a container that just came up) must still
        // end in the orderly stop below once the start-up is done, not kill the process mid-way.
        const stopSignal = new Promise<string>((resolve) => {
          process.once('SIGINT', () => resolve('SIGINT'));
          process.once('SIGTERM', () => resolve('SIGTERM'));
        });
        const runtime = createRuntime(config);
        await upsertSchedules(runtime);
        const webhookUrl = config.alerts.webhookUrl;
        const alerts = webhookUrl ? createAlertSender({ url: webhookUrl, log: logger('alerts') }) : undefined;
        const runListeners = alerts ? [observeRunDurations, alertOnRuns(runtime.pool, alerts)] : [observeRunDurations];
        const running = startWorkers(runtime, { concurrency, runListeners, warmFilingThreads: true });
        const heartbeat = alerts
          ? startSuccessHeartbeat({
              pool: runtime.pool,
              sender: alerts,
              log: logger('alerts'),
              noSuccessAfterMs: config.alerts.noSuccessAfterMs,
              claim: redisAlertClaim(runtime.redis, runtime.prefix),
            })
          : undefined;
        // Recorded (and logged) with or without a webhook: lost_window is the record of what is gone.
        // Judged on each account's exchange clock, like the sync.
        const lostWindows = watchLostWindows({
          pool: runtime.pool,
          sender: alerts,
          log: logger('alerts'),
          exchangeNow: (accountId) => exchangeNow(runtime, accountId),
        });
        // New kinds of drift in the exchange's answers, and refused pages, each alerted once.
        const shapeDrift = alerts
          ? watchShapeDrift({ pool: runtime.pool, sender: alerts, log: logger('alerts') })
          : undefined;
        // A database that cannot write (a full disk, read-only), alerted once per stretch.
        const storage = alerts
          ? watchStorageAlarm({
              alarm: new StorageAlarm(runtime.redis, runtime.prefix),
              redis: runtime.redis,
              prefix: runtime.prefix,
              sender: alerts,
              log: logger('alerts'),
            })
          : undefined;
        // A busy port (a second worker on the host) costs the probes, never the work: the worker runs on.
        const metrics = await startMetricsServer(runtime, config.metrics, logger('metrics')).catch((error: unknown) => {
          log.error({ err: error, ...config.metrics }, 'metrics and probes not served (set METRICS_PORT per worker)');
          return undefined;
        });
        // Redis may lose its data (a flush, a restart without persistence): schedules and the jobs
        // of open windows are put back from the configuration and Postgres while the worker runs.
        // A schedule a clock jump put too far ahead is registered again, logged and alerted.
        const healer = startHealing(runtime, config.workerHealIntervalMs, logger('heal'), alerts);
        const resumed = await resumeUnfinishedActions(runtime);
        if (resumed.length > 0) log.warn({ actions: resumed }, 'unfinished management actions resumed');
        log.info({ concurrency, prefix: runtime.prefix }, 'worker started');
        const signal = await stopSignal;
        log.info({ signal }, 'worker stopping: finishing or releasing the current pages');
        heartbeat?.close();
        lostWindows.close();
        shapeDrift?.close();
        storage?.close();
        await metrics?.close();
        await healer.close();
        await running.close();
        await runtime.close();
        log.info('worker stopped');
      }),
    );
}
