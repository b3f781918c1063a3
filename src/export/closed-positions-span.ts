import pg from 'pg';

import { openClient } from '../db/pg-connections.ts';
import { earliestWindowStart } from '../ingest/coverage/coverage-summary.ts';
import type { ExportCoverage } from './export-coverage.ts';
import { exportCoverage, scopeHistoryStarts } from './export-coverage.ts';

/**
 * The account's first stored futures-ledger record: the ledger entries (futures-entries.ts) take
 * futures results from closed positions only before it. Null when the ledger holds none (then
 * closed positions are read throughout).
 */
export async function firstFuturesLedgerRecord(db: pg.Pool | pg.ClientBase, accountId: string): Promise<Date | null> {
  const { rows } = await db.query<{ ts: Date | null }>(
    'SELECT min(ts) AS ts FROM futures_ledger_record WHERE account_id = $1',
    [accountId],
  );
  return rows[0]?.ts ?? null;
}

/**
 * Where the futures ledger starts vouching for the account's futures results: its first planned
 * window or its first stored record, whichever is earlier (null: never planned, none stored). The
 * walk reads closed positions only before its first record; where the ledger's windows cover a
 * stretch with no record, they say there were no futures results, so positions do not matter there.
 */
export async function futuresLedgerFrom(db: pg.Pool | pg.ClientBase, accountId: string): Promise<Date | null> {
  const record = await firstFuturesLedgerRecord(db, accountId);
  const window = await earliestWindowStart(db, accountId, ['futures-ledger']);
  if (record === null) return window;
  return window !== null && window < record ? window : record;
}

/**
 * The coverage of the `positions` stream over the span whose futures results a ledger-entries
 * report takes from closed positions: from each scope's first window (`history`: lots carried in
 * from the whole history) or the period's start, to the period's end or where the futures ledger
 * starts vouching (futuresLedgerFrom), whichever comes first. Undefined when that span is empty
 * (the usual case: the ledger reaches back a year, positions only 3 months), so a gap in positions
 * the report never reads is no gap of the report.
 */
export async function closedPositionsCoverage(
  databaseUrl: string,
  accountId: string,
  period: { start: Date; end: Date },
  history: boolean,
): Promise<ExportCoverage | undefined> {
  const client = await openClient({ connectionString: databaseUrl, application_name: 'ledgerline-export' });
  let ledgerStart: Date | null;
  try {
    ledgerStart = await futuresLedgerFrom(client, accountId);
  } finally {
    await client.end();
  }
  const end = ledgerStart !== null && ledgerStart < period.end ? ledgerStart : period.end;
  const starts = history
    ? await scopeHistoryStarts(databaseUrl, accountId, 'positions', period.start)
    : new Map([['', period.start]]);
  const parts: ExportCoverage[] = [];
  for (const [scope, start] of starts) {
    if (start >= end) continue;
    parts.push(
      await exportCoverage(databaseUrl, accountId, { start, end }, ['positions'], history ? scope : undefined),
    );
  }
  if (parts.length === 0) return undefined;
  return { complete: parts.every((c) => c.complete), streams: parts.flatMap((c) => c.streams) };
}
