import type { FastifyPluginAsync } from 'fastify';

import { isUuid } from '../../export/export-request.ts';
import { PROBLEMS, sendProblem } from '../error-pages.ts';
import { filingFigures, type FilingFiguresInput, sharedCoverage } from '../filing-figures.ts';
import { taxYearsPage } from '../filing-page.ts';
import { accountNames, pageContext, sendPage } from '../route-kit.ts';
import { lackingProceeds, unknownCosts } from '../unknown-costs.ts';
import type { WebAppDeps } from '../web-deps.ts';

/**
 * How long a view waits for figures it asked the worker for, before showing the last ones
 * (web-deps.ts): the demo account's walk takes 2-3 s, so a first view mostly shows them at once,
 * and a longer walk answers with the last figures, marked, and reloads.
 */
export const DEFAULT_FILING_WAIT_MS = 4_000;
/**
 * While figures are being computed, the page reloads itself this often (the Refresh header): each
 * reload waits up to DEFAULT_FILING_WAIT_MS on the store, so a browser sees the figures within a
 * second of their being stored.
 */
export const COMPUTING_REFRESH_SECONDS = 1;

/**
 * The figures for the tax return per tax year (filing-figures.ts): the filing summaries' own rows,
 * as the worker computed and stored them for the current records and supplied figures. A view
 * walks nothing: while new figures are computed it shows the last ones, marked with their time,
 * and reloads itself until the new ones are there.
 */
export function taxYearRoutes(deps: WebAppDeps): FastifyPluginAsync {
  return async (app) => {
    app.get<{ Params: { accountId: string } }>('/tax-years/:accountId', async (request, reply) => {
      const accountId = request.params.accountId.toLowerCase();
      const name = isUuid(accountId) ? (await accountNames(deps.prisma)).get(accountId) : undefined;
      if (name === undefined) return sendProblem(reply, PROBLEMS.notFound('account'));
      const now = Date.now();
      const input: FilingFiguresInput = {
        pool: deps.pool,
        accountId,
        valuation: deps.valuation,
        queue: deps.filingQueue,
        // Read once, for every year of both methods, once there are figures to judge.
        coverage: sharedCoverage({ pool: deps.pool, accountId, now }),
        now,
        waitMs: deps.filingWaitMs ?? DEFAULT_FILING_WAIT_MS,
      };
      const [uk, de, costs, proceeds] = await Promise.all([
        filingFigures(input, 'uk'),
        filingFigures(input, 'de'),
        unknownCosts(deps.pool, accountId),
        lackingProceeds(deps.pool, accountId),
      ]);
      const view = {
        account: { id: accountId, name },
        uk: uk.years,
        de: de.years,
        figures: { uk, de },
        unknownCosts: costs,
        lackingProceeds: proceeds,
        now,
      };
      if (uk.computing || de.computing) reply.header('refresh', String(COMPUTING_REFRESH_SECONDS));
      return sendPage(reply, taxYearsPage(view, pageContext(request, reply)));
    });
  };
}
