import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';

import type pg from 'pg';

import { walkVersion } from '../accounting/gains/gains-checkpoint-key.ts';
import { describeFirstGap, partialPath } from '../export/export-coverage.ts';
import { exportCsvPath } from '../export/export-files.ts';
import { parseExportRequest } from '../export/export-request.ts';
import { type ExportManifest, manifestPathFor } from '../export/manifest.ts';
import { reportByName } from '../export/reports/index.ts';
import { type Stream, streamDefinition } from '../streams/registry.ts';
import type { DemoRun, WrittenReport } from './demo-exports.ts';
import { rulesTotals } from './demo-rules-totals.ts';

/** Bump when what the demo's files are made from changes in a way the fingerprint does not see. */
const DEMO_INPUTS_VERSION = 1;

/** The time column of each history's table (the records a file of a period up to `end` can read). */
const TIME_COLUMN: Readonly<Record<Stream, string>> = {
  positions: 'updated_time',
  spot: 'ts',
  transfers: 'ts',
  'futures-ledger': 'ts',
  'margin-ledger': 'ts',
  'p2p-ledger': 'ts',
};

const md5Of = (select: string) =>
  `(SELECT md5(COALESCE(string_agg(t::text, ',' ORDER BY t::text), '')) FROM (${select}) x(t))`;

/**
 * A fingerprint of everything a demo file reads, so that a rerun re-exports only the files whose
 * inputs changed: per history it reads, the account's records up to the period's end (how many, and
 * when the newest of them last changed: a revised record moves it) and that history's coverage up to
 * there; the prices and fiat rates (every file that values coins); the supplied costs and proceeds in
 * force and the away decisions (the gains walks); the report, its parameters and, for a walk, the
 * walk's own version (code, rules and tables: gains-checkpoint-key.ts).
 */
export async function demoInputs(pool: pg.Pool, accountId: string, run: DemoRun, valuation: unknown): Promise<string> {
  const report = reportByName(run.report);
  const streams = new Set<Stream>([
    ...report.streams,
    ...(report.closedPositionsBeforeLedger ? ['positions' as const] : []),
  ]);
  const request = parseExportRequest({ report: run.report, accountId, ...run.period, method: run.method });
  const end = request.period.end.toISOString();
  const parts: string[] = [];
  for (const stream of [...streams].sort()) {
    const { table } = streamDefinition(stream).table;
    const time = TIME_COLUMN[stream];
    parts.push(
      `(SELECT count(*) || '/' || COALESCE(max(last_changed_at)::text, '-') FROM ${table} ` +
        `WHERE account_id = $1 AND ${time} < $2::timestamptz)`,
      md5Of(
        `SELECT scope || ':' || (covered * tstzmultirange(tstzrange(NULL, $2::timestamptz)))::text FROM sync_coverage ` +
          `WHERE account_id = $1 AND stream::text = '${stream}'`,
      ),
    );
  }
  if (report.accepts.valuation === true || run.method !== undefined) {
    parts.push(
      `(SELECT count(*) || '/' || md5(COALESCE(sum(hashtext(base || quote || time::text || price::text || source))::text, '')) FROM price WHERE (account_id IS NULL OR account_id = $1) AND time < $2::timestamptz)`,
    );
  }
  const walk =
    run.method !== undefined ||
    ['realized-gains', 'realized-gains-summary', 'income', 'income-summary'].includes(run.report);
  if (walk) {
    parts.push(
      md5Of(`SELECT sha256 FROM cost_basis_import WHERE account_id = $1 AND withdrawn_at IS NULL`),
      md5Of(`SELECT sha256 FROM proceeds_import WHERE account_id = $1 AND withdrawn_at IS NULL`),
      md5Of(
        `SELECT (to_jsonb(d) - 'id' - 'import_id' - 'created_at')::text FROM away_decision d WHERE account_id = $1`,
      ),
    );
  }
  const { rows } = await pool.query<Record<string, string>>(
    `SELECT ${parts.map((p, i) => `${p} AS p${i}`).join(', ')}`,
    [accountId, end],
  );
  const settings = JSON.stringify({
    version: DEMO_INPUTS_VERSION,
    run,
    valuation,
    walk: walk ? walkVersion(run.method ?? 'fifo') : null,
  });
  return createHash('sha256').update(settings).update(JSON.stringify(rows[0])).digest('hex');
}

/**
 * The file a run wrote earlier, read back from its manifest, when that manifest states these very
 * inputs and the file is still as written (its sha256): a rerun keeps it. Otherwise undefined.
 */
export async function unchangedReport(
  exportDir: string,
  accountId: string,
  run: DemoRun,
  inputs: string,
): Promise<WrittenReport | undefined> {
  const request = parseExportRequest({ report: run.report, accountId, ...run.period, method: run.method });
  const whole = exportCsvPath(exportDir, request);
  for (const csvPath of [whole, partialPath(whole)]) {
    const manifest = await readFile(manifestPathFor(csvPath), 'utf8').then(
      (text) => JSON.parse(text) as ExportManifest,
      () => undefined,
    );
    if (manifest?.inputs !== inputs) continue;
    const csv = await readFile(csvPath).catch(() => undefined);
    if (csv === undefined || createHash('sha256').update(csv).digest('hex') !== manifest.sha256) continue;
    const totals = run.method !== undefined && run.report === 'realized-gains' ? await rulesTotals(csvPath) : undefined;
    return {
      report: run.report,
      method: run.method,
      totals,
      review: manifest.review.values,
      period: run.period,
      rows: manifest.rowCount,
      unpairedLegs: manifest.unpairedLegs,
      gap: manifest.coverage ? describeFirstGap(manifest.coverage) : undefined,
      csvPath,
    };
  }
  return undefined;
}
