import { createHash } from 'node:crypto';

import type { Job, Queue } from 'bullmq';

import type { ExportRequest, ExportRequestInput } from '../../src/export/export-request.ts';
import { exportBaseName } from '../../src/export/export-request.ts';

/**
 * An export job's payload: the account by id and the report's parameters, nothing else (never a
 * secret). Plain strings, re-validated by the processor with parseExportRequest.
 */
export interface ExportJobData {
  accountId: string;
  report: string;
  from: string;
  to: string;
  tz: string;
  coin?: string;
  includePending?: boolean;
  /** Lot-matching reports: fifo, lifo, hifo, average, uk or de, and the long-term threshold in days. */
  method?: string;
  longTermDays?: string;
  /** The valuation currency asked for (--valuation), e.g. GBP. */
  valuation?: string;
}

export interface ExportJobResult {
  csvFile: string;
  manifestFile: string;
  rowCount: number;
  sha256: string;
  unmappedRows: number;
}

export function exportJobData(request: ExportRequest): ExportJobData {
  const data: ExportJobData = {
    accountId: request.accountId,
    report: request.report,
    from: request.period.from,
    to: request.period.to,
    tz: request.period.tz,
  };
  if (request.coin) data.coin = request.coin;
  if (request.includePending) data.includePending = true;
  if (request.method !== undefined) data.method = request.method;
  if (request.longTermDays !== undefined) data.longTermDays = String(request.longTermDays);
  if (request.valuationCurrency !== undefined) data.valuation = request.valuationCurrency;
  return data;
}

export function exportRequestInput(data: ExportJobData): ExportRequestInput {
  return { ...data };
}

/**
 * Deterministic: one id per (account, report, period, zone, options), so the same export asked
 * twice (two clicks, a re-run of the monthly schedule) is one job. Short, as it is part of the job
 * page's address: the readable name it stands for ran to 115 characters (`realized-gains-summary`
 * with a zone, a method and a currency); 80 bits of its SHA-256 keep two exports apart. The job's
 * data says what it is. BullMQ ids cannot hold ':'.
 */
export function exportJobId(request: ExportRequest): string {
  return exportJobIdOf(request.accountId, exportBaseName(request));
}

/** The job id of an account's export of a base name (exportBaseName: `<report>_<from>_<to>_<zone>...`). */
export function exportJobIdOf(accountId: string, baseName: string): string {
  return `export-${createHash('sha256').update(`${accountId}.${baseName}`).digest('hex').slice(0, 20)}`;
}

/** The export queue and one of its jobs, as the producers (the page, the schedule) and the processor see them. */
export type ExportQueue = Queue<ExportJobData, ExportJobResult, string>;
export type ExportJob = Job<ExportJobData, ExportJobResult>;
