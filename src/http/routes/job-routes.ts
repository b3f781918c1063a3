import type { FastifyPluginAsync } from 'fastify';

import type { ExportJob } from '../../../jobs/composition/export-queue.ts';
import { PROBLEMS, sendProblem } from '../error-pages.ts';
import { jobView } from '../job-view.ts';
import { jobPage } from '../pages.ts';
import { accountNames, pageContext, sendPage } from '../route-kit.ts';
import type { WebAppDeps } from '../web-deps.ts';

/** One requested export: its state until it finishes (the page refreshes), then its downloads. */
export function jobRoutes(deps: WebAppDeps): FastifyPluginAsync {
  return async (app) => {
    app.get<{ Params: { id: string } }>('/jobs/:id', async (request, reply) => {
      const job = (await deps.exportQueue.getJob(request.params.id)) as ExportJob | undefined;
      if (!job) return sendProblem(reply, PROBLEMS.notFound('export request'));
      const view = await jobView(deps, job, await accountNames(deps.prisma));
      return sendPage(reply, jobPage(view, pageContext(request, reply)));
    });
  };
}
