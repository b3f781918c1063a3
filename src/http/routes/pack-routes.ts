import type { FastifyPluginAsync } from 'fastify';

import { enqueuePack } from '../../../jobs/composition/export-queue.ts';
import { ValidationError } from '../../errors/index.ts';
import { isUuid } from '../../export/export-request.ts';
import { parsePackYear } from '../../export/pack/pack-request.ts';
import { html } from '../html.ts';
import { header, layout } from '../page-layout.ts';
import { accountNames, formField, pageContext, sendPage } from '../route-kit.ts';
import type { WebAppDeps } from '../web-deps.ts';

/**
 * The tax-year pack of one account, method and year: requested here, built by the export worker
 * (jobs/export/pack-processor.ts), followed on its job page, downloaded from /downloads like an
 * export's files.
 */
export function packRoutes(deps: WebAppDeps): FastifyPluginAsync {
  return async (app) => {
    app.post<{ Params: { accountId: string } }>('/tax-years/:accountId/pack', async (request, reply) => {
      const accountId = request.params.accountId.toLowerCase();
      const name = isUuid(accountId) ? (await accountNames(deps.prisma)).get(accountId) : undefined;
      const back = `/tax-years/${encodeURIComponent(accountId)}`;
      const refuse = (status: number, message: string) =>
        sendPage(
          reply,
          layout(
            'Tax-year pack',
            html`${header('Tax-year pack', pageContext(request, reply))}
              <p class="error">${message}</p>
              <p><a href="${name === undefined ? '/' : back}">Back to the tax years</a></p>`,
          ),
          status,
        );
      if (name === undefined) return refuse(404, 'No such account: choose one on the exports page.');
      // `pack` is the page's choice (`uk:2024-25`); `method` and `taxYear` may be sent apart.
      const chosen = formField(request.body, 'pack')?.split(':');
      const method = chosen?.[0] ?? formField(request.body, 'method');
      const taxYear = chosen?.[1] ?? formField(request.body, 'taxYear');
      let year;
      try {
        year = parsePackYear(method, taxYear, Date.now());
      } catch (error) {
        if (error instanceof ValidationError) return refuse(400, `The pack was not requested: ${error.message}.`);
        throw error;
      }
      const job = await enqueuePack(deps.exportQueue, accountId, year);
      return reply
        .code(303)
        .header('location', `/jobs/${encodeURIComponent(job.id!)}`)
        .send();
    });
  };
}
