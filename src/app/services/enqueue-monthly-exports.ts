import type { PrismaClient } from '../../db/prisma.ts';
import { ValidationError } from '../../errors/index.ts';
import { type ExportRequest, parseExportRequest } from '../../export/export-request.ts';
import { type Period, previousMonth } from '../../export/period.ts';
import type { JobPort } from '../job-port.ts';

export interface MonthlyExportSettings {
  readonly reports: readonly string[];
  readonly tz: string;
  /** Account names; empty = every account. */
  readonly accounts: readonly string[];
}

/**
 * Enqueues the configured reports of the previous calendar month (in the configured zone) for
 * the configured accounts. Meant to run after the nightly sync; running it again the same month
 * enqueues nothing new (deterministic job ids, finished jobs kept). Everything is validated
 * before the first job is added.
 */
export async function enqueueMonthlyExports(options: {
  jobs: Pick<JobPort, 'enqueueExport'>;
  prisma: PrismaClient;
  settings: MonthlyExportSettings;
  now?: Date;
}): Promise<{ period: Period; jobIds: string[] }> {
  const { settings } = options;
  const period = previousMonth(options.now ?? new Date(), settings.tz);
  const all = await options.prisma.account.findMany({ select: { id: true, name: true }, orderBy: { name: 'asc' } });
  const accounts =
    settings.accounts.length === 0
      ? all
      : settings.accounts.map((name) => {
          const account = all.find((a) => a.name === name);
          if (!account)
            throw new ValidationError('MONTHLY_EXPORT_ACCOUNTS', 'names an account that does not exist', name);
          return account;
        });
  const requests: ExportRequest[] = accounts.flatMap((account) =>
    settings.reports.map((report) =>
      parseExportRequest({ report, accountId: account.id, from: period.from, to: period.to, tz: period.tz }),
    ),
  );
  const jobIds: string[] = [];
  for (const request of requests) jobIds.push((await options.jobs.enqueueExport(request)).id!);
  return { period, jobIds };
}
