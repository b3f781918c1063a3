import { PACK_REPORT, type PackYear } from '../../src/export/pack/pack-request.ts';
import type { ExportJobData } from './export-job.ts';

/**
 * A tax-year pack's payload: an export job's (the page lists and follows it like one: account,
 * period, zone, method) with the tax year it packs. Plain strings, checked again by the processor
 * (parsePackYear).
 */
export interface PackJobData extends ExportJobData {
  report: typeof PACK_REPORT;
  method: PackYear['method'];
  taxYear: string;
}

export function packJobData(accountId: string, year: PackYear): PackJobData {
  return {
    accountId,
    report: PACK_REPORT,
    from: year.from,
    to: year.to,
    tz: year.tz,
    method: year.method,
    taxYear: year.label,
  };
}
