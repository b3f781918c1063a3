import type { FastifyPluginAsync } from 'fastify';

import { isUuid } from '../../export/export-request.ts';
import { PROBLEMS, sendProblem } from '../error-pages.ts';
import { filingYears } from '../filing-figures.ts';
import { taxYearsPage } from '../filing-page.ts';
import { accountNames, pageContext, sendPage } from '../route-kit.ts';
import { lackingProceeds, unknownCosts } from '../unknown-costs.ts';
import type { WebAppDeps } from '../web-deps.ts';

/** The figures for the tax return per tax year (filing-figures.ts): the filing summaries' own rows. */
export function taxYearRoutes(deps: WebAppDeps): FastifyPluginAsync {
  return async (app) => {
    app.get<{ Params: { accountId: string } }>('/tax-years/:accountId', async (request, reply) => {
      const accountId = request.params.accountId.toLowerCase();
      const name = isUuid(accountId) ? (await accountNames(deps.prisma)).get(accountId) : undefined;
      if (name === undefined) return sendProblem(reply, PROBLEMS.notFound('account'));
      const now = Date.now();
      const input = {
        databaseUrl: deps.databaseUrl,
        pool: deps.pool,
        accountId,
        accountName: name,
        valuation: deps.valuation,
        now,
      };
      const view = {
        account: { id: accountId, name },
        uk: await filingYears(input, 'uk'),
        de: await filingYears(input, 'de'),
        unknownCosts: await unknownCosts(deps.pool, accountId),
        lackingProceeds: await lackingProceeds(deps.pool, accountId),
        now,
      };
      return sendPage(reply, taxYearsPage(view, pageContext(request, reply)));
    });
  };
}
