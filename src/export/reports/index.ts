import type { GainsMethod } from '../../accounting/gains/gains-method.ts';
import { ValidationError } from '../../errors/index.ts';
import { WALLET_LEDGERS } from '../../streams/registry.ts';
import type { ReportDefinition } from '../report-definition.ts';
import { balancesReport } from './balances.ts';
import { beancountReport } from './beancount.ts';
import { brokerTransfersReport } from './broker-transfers.ts';
import { coinTrackingReport } from './cointracking.ts';
import { deGainsReport } from './de-gains.ts';
import { deGainsSummaryReport } from './de-gains-summary.ts';
import { futuresLedgerReport } from './futures-ledger.ts';
import { futuresPnlReport } from './futures-pnl.ts';
import { futuresSummaryReport } from './futures-summary.ts';
import { incomeReport } from './income.ts';
import { incomeSummaryReport } from './income-summary.ts';
import { koinlyFuturesReport, koinlyReport, koinlyWalletLedgerReport } from './koinly.ts';
import { realizedGainsReport } from './realized-gains.ts';
import { realizedGainsSummaryReport } from './realized-gains-summary.ts';
import { spotLedgerReport } from './spot-ledger.ts';
import { ukGainsReport } from './uk-gains.ts';
import { ukGainsSummaryReport } from './uk-gains-summary.ts';
import { walletLedgerReport } from './wallet-ledger.ts';

/** Every report, by name (the names are the CLI's --report values and part of job ids). */
export const REPORTS: readonly ReportDefinition[] = [
  spotLedgerReport,
  futuresPnlReport,
  futuresSummaryReport,
  futuresLedgerReport,
  // One report per wallet ledger of the registry (margin-ledger, p2p-ledger).
  ...WALLET_LEDGERS.map(walletLedgerReport),
  brokerTransfersReport,
  koinlyReport,
  koinlyFuturesReport,
  // One Koinly file per wallet ledger of the registry (koinly-margin, koinly-p2p).
  ...WALLET_LEDGERS.map(koinlyWalletLedgerReport),
  coinTrackingReport,
  balancesReport,
  realizedGainsReport,
  realizedGainsSummaryReport,
  incomeReport,
  incomeSummaryReport,
  beancountReport,
];

/**
 * The definition that makes a report under a method: realized-gains and its summary have their own
 * columns and rows under a jurisdiction's rules (uk, de), under the same name (the method is part
 * of the file name and job id); the income summary keeps its rows and walks the rules' tax years.
 */
const RULES_VARIANTS: Readonly<Record<string, Partial<Record<GainsMethod, ReportDefinition>>>> = {
  'realized-gains': { uk: ukGainsReport, de: deGainsReport },
  'realized-gains-summary': { uk: ukGainsSummaryReport, de: deGainsSummaryReport },
  // The same rows, in the rules' tax years: dates read in their zone, the manifest saying whether all are whole.
  'income-summary': { uk: { ...incomeSummaryReport, taxYears: 'uk' }, de: { ...incomeSummaryReport, taxYears: 'de' } },
};

export function reportFor(name: string, method: GainsMethod | undefined): ReportDefinition {
  const report = reportByName(name);
  return (method !== undefined ? RULES_VARIANTS[report.name]?.[method] : undefined) ?? report;
}

export function reportByName(name: string | undefined): ReportDefinition {
  const report = REPORTS.find((r) => r.name === name);
  if (!report) throw new ValidationError('report', `must be one of ${REPORTS.map((r) => r.name).join(', ')}`, name);
  return report;
}
