import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough } from 'node:stream';

import type { FastifyPluginAsync } from 'fastify';

import { GAINS_METHODS } from '../../accounting/gains/gains-method.ts';
import { downloadPath } from '../../export/export-files.ts';
import type { CellKind } from '../../export/neutralize.ts';
import { reportFor, REPORTS } from '../../export/reports/index.ts';
import { csvToXlsx } from '../csv-to-xlsx.ts';
import { PROBLEMS, sendProblem } from '../error-pages.ts';
import type { WebAppDeps } from '../web-deps.ts';

/** The cell kinds of a report's columns, from its file name (`<report>_<from>_<to>_...csv`). */
function columnKinds(csvName: string): CellKind[] {
  const parts = csvName.replace(/\.csv$/, '').split('_');
  const method = GAINS_METHODS.find((m) => parts.includes(m));
  const report = REPORTS.some((r) => r.name === parts[0]) ? reportFor(parts[0]!, method) : undefined;
  return report ? report.columns.map((c) => c.kind) : [];
}

/** A finished export's files (CSV, manifest), and an .xlsx made on the fly from the CSV. */
export function downloadRoutes(deps: Pick<WebAppDeps, 'exportDir'>): FastifyPluginAsync {
  return async (app) => {
    app.get<{ Params: { accountId: string; file: string } }>('/downloads/:accountId/:file', async (request, reply) => {
      // An .xlsx is made on the fly from the CSV of the same name: the CSV stays the record.
      const xlsx = request.params.file.endsWith('.xlsx');
      const csvName = xlsx ? `${request.params.file.slice(0, -'.xlsx'.length)}.csv` : request.params.file;
      const file = downloadPath(deps.exportDir, request.params.accountId, csvName);
      const real = file ? await realpath(file).catch(() => undefined) : undefined;
      const root = await realpath(deps.exportDir).catch(() => undefined);
      const inside = real && root && path.dirname(path.dirname(real)) === root;
      const found = inside ? await stat(real).catch(() => undefined) : undefined;
      if (!file || !found?.isFile()) return sendProblem(reply, PROBLEMS.notFound('file'));
      if (xlsx) {
        const body = new PassThrough();
        csvToXlsx(real!, columnKinds(csvName), body).catch((error: unknown) => {
          request.log.error({ err: error }, 'xlsx conversion failed');
          body.destroy(error as Error);
        });
        return reply
          .type('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
          .header('content-disposition', `attachment; filename="${request.params.file}"`)
          .send(body);
      }
      const type = file.endsWith('.csv')
        ? 'text/csv; charset=utf-8'
        : file.endsWith('.json')
          ? 'application/json; charset=utf-8'
          : file.endsWith('.zip')
            ? 'application/zip'
            : 'text/plain; charset=utf-8';
      return reply
        .type(type)
        .header('content-disposition', `attachment; filename="${request.params.file}"`)
        .header('content-length', found.size)
        .send(createReadStream(real!));
    });
  };
}
