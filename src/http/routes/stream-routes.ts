import { PassThrough } from 'node:stream';

import type { FastifyPluginAsync } from 'fastify';

import { ValidationError } from '../../errors/index.ts';
import { parseExportRequest, reportParams } from '../../export/export-request.ts';
import { reportFor } from '../../export/reports/index.ts';
import { streamReport } from '../../export/stream-report.ts';
import { PROBLEMS, sendProblem } from '../error-pages.ts';
import { accountNames } from '../route-kit.ts';
import type { WebAppDeps } from '../web-deps.ts';
import { formInput } from './home-routes.ts';

/** A report streamed straight into the response, without a file or manifest (for scripts). */
export function streamRoutes(deps: WebAppDeps): FastifyPluginAsync {
  return async (app) => {
    app.get<{ Params: { report: string }; Querystring: Record<string, string> }>(
      '/stream/:report',
      async (request, reply) => {
        let parsed;
        try {
          parsed = parseExportRequest(formInput({ ...(request.query ?? {}), report: request.params.report }));
        } catch (error) {
          if (error instanceof ValidationError) return sendProblem(reply, PROBLEMS.invalid(error.message));
          throw error;
        }
        const accountName = (await accountNames(deps.prisma)).get(parsed.accountId);
        if (accountName === undefined) return sendProblem(reply, PROBLEMS.notFound('account'));
        const body = new PassThrough();
        // Under --method uk or de the report is that method's variant (its own columns), as an export's is.
        const report = reportFor(parsed.report, parsed.method);
        streamReport({
          databaseUrl: deps.databaseUrl,
          report,
          params: reportParams(parsed, accountName, deps.valuation),
          sink: body,
        }).catch((error: unknown) => {
          request.log.error({ err: error }, 'streamed export failed');
          body.destroy(error as Error);
        });
        const extension = report.textFile?.extension ?? '.csv';
        return reply
          .type(report.textFile ? 'text/plain; charset=utf-8' : 'text/csv; charset=utf-8')
          .header(
            'content-disposition',
            `attachment; filename="${parsed.report}_${parsed.period.from}_${parsed.period.to}${extension}"`,
          )
          .send(body);
      },
    );
  };
}
