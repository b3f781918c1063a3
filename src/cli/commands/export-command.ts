import path from 'node:path';

import type { Command } from 'commander';

import { createPrisma } from '../../db/prisma.ts';
import { ValidationError } from '../../errors/index.ts';
import { exportCovered } from '../../export/export-covered.ts';
import { parseExportRequest } from '../../export/export-request.ts';
import { parsePeriod } from '../../export/period.ts';
import { reportByName, REPORTS } from '../../export/reports/index.ts';
import { printable } from '../../vocabulary/printable-text.ts';
import { printJson } from '../plain-table.ts';
import { runTool } from '../run-tool.ts';

interface ExportOptions {
  report?: string;
  account?: string;
  from?: string;
  to?: string;
  tz?: string;
  coin?: string;
  pending?: boolean;
  method?: string;
  longTermDays?: string;
  valuation?: string;
  allowPartial?: boolean;
  out?: string;
  json?: boolean;
}

export function registerExportCommand(program: Command): void {
  program
    .command('export')
    .description(
      'write one report (CSV; the beancount journal as .beancount) and its manifest (streamed from Postgres)',
    )
    .requiredOption('--report <name>', `one of ${REPORTS.map((r) => r.name).join(', ')}`)
    .requiredOption('--account <name>', 'the account, by name')
    .requiredOption('--from <date>', 'first day, yyyy-MM-dd (local midnight in --tz)')
    .requiredOption('--to <date>', 'last day included, yyyy-MM-dd')
    .option(
      '--tz <zone>',
      'IANA time zone of the dates and of local times (default UTC; realized-gains-summary under --method uk / de: Europe/London / Europe/Berlin, where its tax years run)',
    )
    .option('--coin <coin>', 'only this coin (margin coin for futures reports)')
    .option('--pending', 'broker-transfers: include records still pending')
    .option(
      '--method <method>',
      'realized gains: fifo, lifo, hifo, average, uk (HMRC share matching, GBP) or de (section 23 EStG, EUR) (default fifo)',
    )
    .option('--long-term-days <days>', 'realized gains: held more than this many days is long-term (default 365)')
    .option('--valuation <currency>', 'value in this currency, e.g. GBP or EUR (default VALUATION_CURRENCY)')
    .option('--allow-partial', 'export even when the period is not fully synced (the file is marked _PARTIAL)')
    .option(
      '--out <file>',
      'file to write, or a directory to write it into (default: EXPORT_DIR/<account id>/<report>_<from>_<to>_<tz>.csv, or .beancount for beancount)',
    )
    .option(
      '--json',
      'print one JSON object (files, rows, sha256, partial) instead of the text; warnings stay on stderr',
    )
    .action((options: ExportOptions) =>
      runTool(
        async (config, report) => {
          const prisma = createPrisma(config.databaseUrl);
          try {
            const account = await prisma.account.findUnique({
              where: { name: options.account ?? '' },
              select: { id: true, name: true },
            });
            if (!account) throw new ValidationError('account', 'no account with this name', options.account);
            const request = parseExportRequest({
              report: report.name,
              accountId: account.id,
              from: options.from,
              to: options.to,
              tz: options.tz,
              coin: options.coin,
              includePending: options.pending,
              method: options.method,
              longTermDays: options.longTermDays,
              valuation: options.valuation,
            });
            // A period the stored history does not fully cover is refused, unless asked for: then marked.
            const { csvPath, manifestPath, unpairedPath, manifest, gap } = await exportCovered({
              databaseUrl: config.databaseUrl,
              exportDir: config.exportDir,
              request,
              account,
              partial: options.allowPartial ? 'mark' : 'refuse',
              // A trailing separator says "a directory" even before it exists: resolve() would drop it.
              out: options.out
                ? path.resolve(options.out) + (options.out.endsWith(path.sep) ? path.sep : '')
                : undefined,
              valuation: config.valuation,
            });
            const p = request.period;
            if (options.json) {
              printJson({
                report: report.name,
                account: account.name,
                period: { from: p.from, to: p.to, tz: p.tz },
                rows: manifest.rowCount,
                csv: csvPath,
                manifest: manifestPath,
                sha256: manifest.sha256,
                partial: gap !== undefined,
                unpairedLegs: manifest.unpairedLegs,
                unmappedRows: manifest.unmapped.rows,
              });
            } else {
              console.log(
                `wrote ${report.name} of ${account.name}, ${p.from} to ${p.to} (${p.tz}): ${manifest.rowCount} rows`,
              );
              console.log(`  csv       ${csvPath}`);
              console.log(`  manifest  ${manifestPath}`);
              console.log(`  sha256    ${manifest.sha256}`);
            }
            if (gap) process.stderr.write(`warning: partial export (--allow-partial): ${printable(gap)}\n`);
            if (manifest.unmapped.rows > 0) {
              process.stderr.write(
                `warning: ${manifest.unmapped.rows} rows carry values the mapping does not know (exported, category unmapped):\n`,
              );
              for (const [value, count] of Object.entries(manifest.unmapped.values)) {
                // The values are the exchange's strings: printed escaped, never as terminal controls.
                process.stderr.write(`  ${printable(value)}  ${count}\n`);
              }
            }
            // Last, so it is what an operator sees: these legs reach the tax tool as single movements.
            if (manifest.unpairedLegs > 0) {
              process.stderr.write(
                `warning: ${manifest.unpairedLegs} trade legs could not be paired with their other side; exported as single rows and listed in ${printable(unpairedPath ?? '')}\n`,
              );
            }
          } finally {
            await prisma.$disconnect();
          }
        },
        {
          // Everything that needs no database is checked before a store is asked anything.
          input: () => {
            const report = reportByName(options.report);
            parsePeriod(options);
            return report;
          },
        },
      ),
    );
}
