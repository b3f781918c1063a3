import { parentPort, workerData } from 'node:worker_threads';

import { sharingGainsWalks } from '../export/reports/shared-gains-walks.ts';
import { createRootLogger, setRootLogger } from '../logging/logger.ts';
import type { ExportJob, WorkerReply } from './demo-export-workers.ts';
import { exportReport } from './demo-exports.ts';
import { demoLogger } from './demo-log-file.ts';

/**
 * One thread of the demo's exports (demo-export-workers.ts): each job is a group of files written
 * side by side, sharing their gains walks; it says when their walks have read the supplied tables,
 * then what it wrote, or why it failed.
 */
const port = parentPort!;
// The demo's log file, when it has one (demo-log-file.ts): nothing of a thread's reaches the terminal.
const logFile = (workerData as { logFile?: string } | null)?.logFile;
setRootLogger(logFile === undefined ? createRootLogger({ level: 'warn' }) : demoLogger(logFile));

port.on('message', (job: ExportJob) => {
  const reply = (message: WorkerReply) => port.postMessage(message);
  sharingGainsWalks(
    async () => {
      const results = await Promise.allSettled(
        job.runs.map((run, i) => exportReport(job.config, job.account, run, job.exportDir, job.inputs?.[i])),
      );
      const failed = results.find((r) => r.status === 'rejected');
      if (failed) throw failed.reason;
      return results.map((r) => (r as PromiseFulfilledResult<Awaited<ReturnType<typeof exportReport>>>).value);
    },
    { onInputsRead: () => reply({ id: job.id, kind: 'inputs-read' }) },
  ).then(
    (written) => reply({ id: job.id, kind: 'written', written }),
    (error: unknown) =>
      reply({
        id: job.id,
        kind: 'failed',
        name: error instanceof Error ? error.name : 'Error',
        message: error instanceof Error ? error.message : String(error),
        code: (error as { code?: unknown } | null)?.code?.toString(),
      }),
  );
});
