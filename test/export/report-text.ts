import { PassThrough } from 'node:stream';

import type { parseExportRequest } from '../../src/export/export-request.ts';
import { reportParams } from '../../src/export/export-request.ts';
import { reportByName } from '../../src/export/reports/index.ts';
import { streamReport } from '../../src/export/stream-report.ts';

/** A report as the tests read it: streamed into memory, its text whole (no file, no manifest). */
export async function reportText(
  databaseUrl: string,
  request: ReturnType<typeof parseExportRequest>,
  accountName: string,
): Promise<string> {
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on('data', (c: Buffer) => chunks.push(c));
  await streamReport({
    databaseUrl,
    report: reportByName(request.report),
    params: reportParams(request, accountName),
    sink,
  });
  return Buffer.concat(chunks).toString('utf8');
}
