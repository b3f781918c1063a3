import type { ExportJob } from '../../jobs/composition/export-queue.ts';
import { PACK_REPORT } from '../export/pack/pack-request.ts';
import { parsePeriod } from '../export/period.ts';
import { REPORTS } from '../export/reports/index.ts';
import { periodGaps } from './coverage.ts';
import { packTitle } from './pack-form.ts';
import type { JobView } from './pages.ts';
import type { WebAppDeps } from './web-deps.ts';

/**
 * An export job as the pages show it. The parts of its period the report's streams do not cover
 * are as of now while it waits (a later sync may fill them); a finished export is judged by the
 * coverage when it was written.
 */
export async function jobView(
  deps: Pick<WebAppDeps, 'pool'>,
  job: ExportJob,
  names: Map<string, string>,
): Promise<JobView> {
  // A tax-year pack (pack-routes.ts) reads what the year's summary reads.
  const pack = job.data.report === PACK_REPORT;
  const data = job.data as typeof job.data & { taxYear?: string };
  return {
    id: job.id!,
    state: await job.getState(),
    report: job.data.report,
    reportTitle: pack
      ? packTitle(job.data.method, data.taxYear)
      : (REPORTS.find((r) => r.name === job.data.report)?.title ?? job.data.report),
    accountId: job.data.accountId,
    accountName: names.get(job.data.accountId) ?? job.data.accountId,
    from: job.data.from,
    to: job.data.to,
    tz: job.data.tz,
    coin: job.data.coin,
    includePending: job.data.includePending,
    method: job.data.method,
    valuation: job.data.valuation,
    createdAt: new Date(job.timestamp).toISOString().slice(0, 19).replace('T', ' '),
    failedReason: job.failedReason || undefined,
    result: job.returnvalue ?? undefined,
    gaps: await periodGaps(
      deps.pool,
      job.data.accountId,
      pack ? 'realized-gains-summary' : job.data.report,
      parsePeriod(job.data),
      job.finishedOn ? new Date(job.finishedOn) : undefined,
    ),
  };
}
