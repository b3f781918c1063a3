import { ValidationError } from '../../errors/index.ts';
import type { ReportDefinition } from '../report-definition.ts';
import { balancesReport } from './balances.ts';
import { beancountReport } from './beancount.ts';
import { brokerTransfersReport } from './broker-transfers.ts';
import { coinTrackingReport } from './cointracking.ts';
import { futuresLedgerReport } from './futures-ledger.ts';
import { futuresPnlReport } from './futures-pnl.ts';
import { futuresSummaryReport } from './futures-summary.ts';
import { incomeReport } from './income.ts';
import { koinlyFuturesReport, koinlyReport } from './koinly.ts';
import { realizedGainsReport } from './realized-gains.ts';
import { realizedGainsSummaryReport } from './realized-gains-summary.ts';
import { spotLedgerReport } from './spot-ledger.ts';

/** Every report, by name (the names are the CLI's --report values and part of job ids). */
export const REPORTS: readonly ReportDefinition[] = [
  spotLedgerReport,
  futuresPnlReport,
  futuresSummaryReport,
  futuresLedgerReport,
  brokerTransfersReport,
  koinlyReport,
  koinlyFuturesReport,
  coinTrackingReport,
  balancesReport,
  realizedGainsReport,
  realizedGainsSummaryReport,
  incomeReport,
  beancountReport,
];

export function reportByName(name: string | undefined): ReportDefinition {
  const report = REPORTS.find((r) => r.name === name);
  if (!report) throw new ValidationError('report', `must be one of ${REPORTS.map((r) => r.name).join(', ')}`, name);
  return report;
}
