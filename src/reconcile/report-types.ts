import { type Stream, STREAM_TITLES, WALLET_LEDGERS, type WalletLedger } from '../streams/registry.ts';
import type { RecountMode } from './recount-mode.ts';

/** A stored window, named the way an operator finds it: stream, scope, [start, end) in UTC ms. */
export interface WindowName {
  stream: Stream;
  /** The productType for positions, '' otherwise. */
  scope: string;
  start: number;
  end: number;
}

/** Part of the ledger no done window covers, or a window left unfinished, or coverage lost since an earlier run. */
export type CoverageFinding =
  | ({ kind: 'gap' } & WindowName)
  | ({ kind: 'not-done'; status: 'pending' | 'running' | 'failed'; lastError: string | null } & WindowName)
  /**
   * Coverage lost since an earlier report: start/end are the widest extent earlier reports
   * recorded, `current` what is covered now (null: nothing). Done windows were removed.
   */
  | ({ kind: 'shrunk'; current: { start: number; end: number } | null } & WindowName);

/** The covered extent of one (stream, scope): earliest covered start to latest covered end. */
export type CoverageExtent = WindowName;

/** A spot record whose balance is not its predecessor's balance + amount + fee (same coin). */
export interface BalanceBreak {
  coin: string;
  recordId: string;
  /** The stored record before it (same coin, by ts then id). */
  previousRecordId: string;
  ts: number;
  /** Exact decimals as text. */
  expected: string;
  stored: string;
}

/** A ts at which at least a full page of records is stored: a full page could have come back with that one ts. */
export interface PagingSuspect {
  stream: Stream;
  scope: string;
  ts: number;
  stored: number;
  pageLimit: number;
  /** The exchange's count for that millisecond (paged by id); null when not asked. */
  exchange: number | null;
  /** The done window holding the ts, when one does. */
  window: WindowName | null;
  verdict: 'verified' | 'stuck' | 'unconfirmed' | 'plausible' | 'beyond-horizon';
}

/** A window whose stored rows differ from what the exchange returns for it now. */
export interface CountMismatch extends WindowName {
  stored: number;
  exchange: number;
  /** Keys the exchange has and the database does not (at most a few). */
  missing: string[];
  /** Keys stored in the window that the exchange did not return for it (at most a few). */
  extra: string[];
}

interface CheckBase {
  passed: boolean;
  /** What was examined, in one phrase: "412 records of 7 coins". */
  examined: string;
  /** One line per failure, naming what failed. */
  failures: string[];
  /** Things worth knowing that are not failures (a skipped window, a verified burst). */
  notes: string[];
  /** The check could not run to the end (an exchange or database error); it counts as failed. */
  error?: string;
}

export interface CoverageCheck extends CheckBase {
  name: 'coverage';
  extents: CoverageExtent[];
  findings: CoverageFinding[];
}

export interface BalanceCheck extends CheckBase {
  name: 'balance-continuity';
  breaks: BalanceBreak[];
  /** Every break found (breaks lists at most the first BALANCE_BREAKS_LISTED). */
  breakCount: number;
  /** Requests the anchors sent to the exchange (those the re-reads or fresh reads did not answer). */
  anchorRequests?: number;
}

export interface PagingCheck extends CheckBase {
  name: 'paging-stuck';
  suspects: PagingSuspect[];
}

export interface CountCheck extends CheckBase {
  name: 'window-counts';
  recount: RecountMode;
  windowsRecounted: number;
  /** Of those, the windows whose own fresh read vouched for them, nothing asked (read-marks.ts). */
  windowsFromReads?: number;
  /** Requests the re-count sent to the exchange (pages of the windows asked). */
  requests?: number;
  /** The same per stream. */
  requestsByStream?: Partial<Record<Stream, number>>;
  mismatches: CountMismatch[];
}

/** A futures wallet replayed from its first stored record (exact decimals as text). */
export interface FuturesWalletReplay {
  productType: string;
  marginCoin: string;
  records: number;
  /** The sum of every stored record's amount + fee. */
  balance: string;
  /** The lowest running balance, or 0. */
  lowest: string;
  firstRecordId: string;
  lowestRecordId: string;
}

/** A spot<->futures transfer seen on one side only (or two near ones that do not match): both ids when there are two. */
export interface TransferFinding {
  coin: string;
  ts: number;
  spotRecordId: string | null;
  /** As the spot record has it (− out of spot). */
  spotAmount: string | null;
  futuresRecordId: string | null;
  /** As the futures record moves its wallet (+ into futures). */
  futuresAmount: string | null;
}

export interface FuturesLedgerCheck extends CheckBase {
  name: 'futures-ledger';
  wallets: FuturesWalletReplay[];
  unpaired: TransferFinding[];
  untiedPositions: number;
}

/** One wallet of a wallet ledger (margin: marginType and coin; P2P: the coin), replayed from its first stored record. */
export interface WalletReplay {
  scope: string;
  coin: string;
  records: number;
  /** The balance after its last stored record (the exchange's running total when it sends one, else the sum of changes). */
  balance: string;
  /** The lowest running balance (sum of changes from the first stored record), or 0. */
  lowest: string;
}

/** A record whose running total is not its predecessor's total + its change (same wallet): a record missing between them, or a wrong total. */
export interface TotalBreak {
  scope: string;
  coin: string;
  recordId: string;
  previousRecordId: string;
  ts: number;
  expected: string;
  stored: string;
}

/** A wallet transfer with no spot record on the other side (same coin and amount, the opposite way, at the same instant). */
export interface UnpairedWalletTransfer {
  scope: string;
  coin: string;
  recordId: string;
  type: string;
  /** Into the wallet (+) or out of it (−). */
  change: string;
  ts: number;
  /** The nearest spot transfer of the coin within the tolerance that did not match, if any. */
  nearestSpotRecordId: string | null;
}

/** Check of one wallet ledger (margin, P2P): its name is the stream's. */
export interface WalletLedgerCheck extends CheckBase {
  name: WalletLedger;
  wallets: WalletReplay[];
  breaks: TotalBreak[];
  unpaired: UnpairedWalletTransfer[];
}

export type CheckResult =
  CoverageCheck | BalanceCheck | PagingCheck | CountCheck | FuturesLedgerCheck | WalletLedgerCheck;
export type CheckName = CheckResult['name'];

export const CHECK_TITLES: Record<CheckName, string> = {
  coverage: 'coverage',
  'balance-continuity': 'spot balance continuity',
  'paging-stuck': 'paging stuck',
  'window-counts': 'window counts',
  'futures-ledger': 'futures ledger',
  // Every wallet ledger of the registry has a check of its own, titled as the stream is.
  ...(Object.fromEntries(WALLET_LEDGERS.map((s) => [s, STREAM_TITLES[s].toLowerCase()])) as Record<
    WalletLedger,
    string
  >),
};

export interface ReconciliationReport {
  /** The report row's id. */
  id: string;
  accountId: string;
  accountName: string;
  recount: RecountMode;
  /** The whole history checked, not only what followed the verified balance chains. */
  full: boolean;
  startedAt: Date;
  finishedAt: Date;
  passed: boolean;
  checks: CheckResult[];
  /** The printed summary (formatReport). */
  summary: string;
}
