import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';

import { enqueueExport, type ExportJob } from '../../../jobs/composition/export-queue.ts';
import { ValidationError } from '../../errors/index.ts';
import { listExports } from '../../export/export-files.ts';
import { type ExportRequestInput, parseExportRequest } from '../../export/export-request.ts';
import type { ExportManifest } from '../../export/manifest.ts';
import { parsePeriod, parseTimeZone } from '../../export/period.ts';
import { REPORTS } from '../../export/reports/index.ts';
import { accountCoverage, type PeriodGap, periodGaps } from '../coverage.ts';
import { jobView } from '../job-view.ts';
import { monthlyBalances } from '../monthly-balances.ts';
import { type AccountView, type FormState, homePage } from '../pages.ts';
import { presetDates } from '../period-presets.ts';
import { accountNames, formField, pageContext, sendPage } from '../route-kit.ts';
import { unknownCosts } from '../unknown-costs.ts';
import type { WebAppDeps } from '../web-deps.ts';

const RECENT_JOBS = 25;

/** The export form's fields as the request parser takes them. */
export function formInput(body: unknown): ExportRequestInput {
  // Shapes only; parseExportRequest checks every field (a repeated one arrives as an array).
  const form = (body ?? {}) as Record<string, string | undefined>;
  // The form always sends the lot options; only the reports that match lots take them.
  const accepts = REPORTS.find((r) => r.name === form.report)?.accepts;
  const lots = accepts?.lots === true;
  return {
    accountId: form.accountId,
    report: form.report,
    from: form.from,
    to: form.to,
    tz: form.tz,
    coin: form.coin,
    includePending: form.includePending === '1' || form.includePending === 'true',
    method: lots ? form.method : undefined,
    longTermDays: lots ? form.longTermDays : undefined,
    valuation: accepts?.valuation === true ? form.valuation : undefined,
  };
}

/** The exports page: each account's coverage, balances and finished files; the request form; the jobs. */
export function homeRoutes(deps: WebAppDeps): FastifyPluginAsync {
  // A manifest written by another version, with parameters this one cannot read, is listed as it is.
  const manifestGaps = async (accountId: string, m: ExportManifest): Promise<PeriodGap[]> => {
    let period;
    try {
      period = parsePeriod(m.parameters);
    } catch (error) {
      if (error instanceof ValidationError) return [];
      throw error;
    }
    return periodGaps(deps.pool, accountId, m.report, period, new Date(m.generatedAt));
  };

  const home = async (request: FastifyRequest, reply: FastifyReply, form?: FormState) => {
    const names = await accountNames(deps.prisma);
    const accounts: AccountView[] = [];
    for (const [id, name] of names) {
      accounts.push({
        id,
        name,
        exports: await Promise.all(
          (await listExports(deps.exportDir, id)).map(async (listed) => ({
            ...listed,
            gaps: await manifestGaps(id, listed.manifest),
          })),
        ),
        coverage: await accountCoverage(deps.pool, deps.prisma, id),
        balances: await monthlyBalances(deps.pool, id),
        unknownCosts: await unknownCosts(deps.pool, id),
      });
    }
    const jobs = (await deps.exportQueue.getJobs(
      ['active', 'waiting', 'delayed', 'prioritized', 'completed', 'failed'],
      0,
      RECENT_JOBS,
    )) as ExportJob[];
    const views = await Promise.all(jobs.filter(Boolean).map((j) => jobView(deps, j, names)));
    views.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id));
    return sendPage(
      reply,
      homePage(
        { accounts, reports: REPORTS, jobs: views.slice(0, RECENT_JOBS), form, now: Date.now() },
        pageContext(request, reply),
      ),
      form?.error ? 400 : form?.gaps ? 409 : 200,
    );
  };

  return async (app) => {
    app.get('/', async (request, reply) => home(request, reply));

    app.post('/exports', async (request, reply) => {
      let values = formInput(request.body);
      try {
        // A preset fills the dates (in the chosen zone); the form then shows them.
        const period = formField(request.body, 'period');
        const zone = () => parseTimeZone(formField(request.body, 'tz'));
        const preset = period && period !== 'custom' ? presetDates(period, new Date(), zone()) : undefined;
        if (preset) values = { ...values, ...preset };
        const names = await accountNames(deps.prisma);
        if (!values.accountId || !names.has(values.accountId)) {
          throw new ValidationError('account', 'choose one of the registered accounts');
        }
        const parsed = parseExportRequest(values);
        // Warned before it is requested: the accountant confirms a period the data does not cover.
        const gaps = await periodGaps(deps.pool, parsed.accountId, parsed.report, parsed.period);
        if (gaps.length > 0 && formField(request.body, 'acceptPartial') !== '1') {
          return home(request, reply, { values, gaps });
        }
        const job = await enqueueExport(deps.exportQueue, parsed, { replaceFinished: true });
        return reply
          .code(303)
          .header('location', `/jobs/${encodeURIComponent(job.id!)}`)
          .send();
      } catch (error) {
        if (error instanceof ValidationError) return home(request, reply, { values, error: error.message });
        throw error;
      }
    });
  };
}
