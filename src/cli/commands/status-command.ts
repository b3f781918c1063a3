import type { Command } from 'commander';

import { createRuntime } from '../../../jobs/composition/create-runtime.ts';
import { nightlySyncState } from '../../../jobs/composition/schedules.ts';
import type { AccountSummary } from '../../accounts/account-service.ts';
import { databaseName } from '../../db/ensure-database.ts';
import { StorageAlarm, type StorageFailure } from '../../ingest/coverage/storage-alarm.ts';
import { horizonWarnings, partsFrom, type StreamStatus, streamStatuses } from '../../ingest/coverage/stream-status.ts';
import { listShapeDrift, type ShapeDriftRow } from '../../ingest/shape-drift-store.ts';
import { endpointLabel, shapeDriftLine } from '../../ingest/shape-drift-text.ts';
import { formatInstant } from '../../ingest/time-arguments.ts';
import { lastFullCheck } from '../../reconcile/full-check-schedule.ts';
import { EXIT } from '../exit-codes.ts';
import { printJson } from '../plain-table.ts';
import { runTool } from '../run-tool.ts';
import { freshTail, streamProblems } from '../status-verdict.ts';

const when = (date: Date | null) => (date ? formatInstant(date.getTime()) : 'never');
const ranges = (list: { start: number; end: number }[]) =>
  list.length === 0 ? 'none' : list.map((r) => `${formatInstant(r.start)} .. ${formatInstant(r.end)}`).join(', ');
const isoRanges = (list: { start: number; end: number }[]) =>
  list.map((r) => ({ start: new Date(r.start).toISOString(), end: new Date(r.end).toISOString() }));

/** `4 min`, `3 h 05 min`, `2 days`: how long ago, in words a person reads at a glance. Pure. */
export function ago(ms: number): string {
  const minutes = Math.max(0, Math.floor(ms / 60_000));
  if (minutes < 60) return `${minutes} min`;
  if (minutes < 48 * 60) return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
  return `${Math.floor(minutes / 1440)} days`;
}

/**
 * A running worker registers the schedule again within WORKER_HEAL_INTERVAL_MS when Redis lost
 * it, so "not scheduled" is said only when no worker is there to do so.
 */
function nightlyLine(next: number | undefined, workers: number, demo: boolean): string {
  if (next) return formatInstant(next);
  // The demo's worker (npm run demo -- --serve) runs no schedule: nothing was lost, none is coming.
  if (demo) return 'none: no schedules in the demo (a `ledgerline worker` of an installation registers them)';
  if (workers > 0)
    return 'being registered again by the running worker (Redis lost it), within WORKER_HEAL_INTERVAL_MS';
  return 'not scheduled (start `ledgerline worker`)';
}

/** A window that can no longer be read: the exchange's horizon passed it before it was (lost_window). */
interface LostWindow {
  stream: string;
  scope: string;
  windowStart: Date;
  windowEnd: Date;
  readableFrom: Date;
  reason: string;
}

interface AccountStatus {
  account: AccountSummary;
  warnings: string[];
  streams: StreamStatus[];
  lost: LostWindow[];
  /** When the account's last full reconciliation started (null: never); nightly ones read only what followed it. */
  lastFullCheck: Date | null;
}

/** `status --json`: one object, stable field names, instants as ISO 8601 UTC. */
function statusJson(
  now: number,
  next: number | undefined,
  workers: number,
  accounts: AccountStatus[],
  drift: ShapeDriftRow[],
  ok: boolean,
  storage: StorageFailure | undefined,
) {
  return {
    ok,
    now: new Date(now).toISOString(),
    databaseCannotWrite: storage
      ? { lastRefusedAt: new Date(storage.at).toISOString(), code: storage.code, error: storage.message }
      : null,
    nightly: { next: next ? new Date(next).toISOString() : null, workers },
    exchangeShape: drift.map((row) => ({
      endpoint: endpointLabel(row.endpoint),
      field: row.field,
      kind: row.kind,
      count: row.count,
      firstSeen: row.firstSeenAt.toISOString(),
      lastSeen: row.lastSeenAt.toISOString(),
      text: shapeDriftLine(row),
    })),
    accounts: accounts.map(({ account, warnings, streams, lost, lastFullCheck }) => ({
      name: account.name,
      uid: account.uid,
      disabled: account.disabledAt !== null,
      lastFullCheck: lastFullCheck?.toISOString() ?? null,
      warnings,
      lost: lost.map((l) => ({
        stream: l.stream,
        scope: l.scope,
        start: l.windowStart.toISOString(),
        end: l.windowEnd.toISOString(),
        readableFrom: l.readableFrom.toISOString(),
        reason: l.reason,
      })),
      streams: streams.map((s) => {
        const problems = streamProblems(s, now);
        return {
          stream: s.stream,
          scope: s.scope,
          covered: isoRanges(s.covered),
          gaps: isoRanges(s.gaps),
          failed: isoRanges(s.failed),
          beyondHorizon: isoRanges(s.beyondHorizon),
          problemGaps: isoRanges(problems.gaps),
          lastSuccess: s.lastSuccess?.toISOString() ?? null,
          lastFailure: s.lastFailure ? { at: s.lastFailure.at.toISOString(), error: s.lastFailure.error } : null,
          windowsOpen: s.windowsOpen,
        };
      }),
    })),
  };
}

export function registerStatusCommand(program: Command): void {
  program
    .command('status')
    .description(
      'per account and stream: covered ranges, gaps, last success and failure, next run, horizon warnings; exits 1 when there are gaps (older than the last 26 h) or failed windows',
    )
    .option('--account <name>', 'only this account')
    .option('--json', 'print one JSON object instead of the text')
    .action((options: { account?: string; json?: boolean }) =>
      runTool(async (config) => {
        const runtime = createRuntime(config);
        // One instant for every account and stream: gaps run up to it and warnings count from it.
        const now = Date.now();
        try {
          const accounts = options.account
            ? [await runtime.accounts.get(options.account)]
            : await runtime.accounts.list();
          const { nightly, workers } = await nightlySyncState(runtime);
          // Kept in Redis by the workers: a database that cannot write cannot say so in itself.
          const storage = await new StorageAlarm(runtime.redis, runtime.prefix).current().catch(() => undefined);
          const statuses: AccountStatus[] = [];
          for (const account of accounts) {
            const streams = await streamStatuses(runtime.pool, account.id, now);
            const lost = await runtime.prisma.lostWindow.findMany({
              where: { accountId: account.id },
              orderBy: [{ stream: 'asc' }, { scope: 'asc' }, { windowStart: 'asc' }],
            });
            statuses.push({
              account,
              streams,
              warnings: horizonWarnings(streams, now),
              lost,
              lastFullCheck: await lastFullCheck(runtime.pool, account.id),
            });
          }
          // The exchange's answers as they differ from the contract: read anyway (drift) or refused.
          const drift = await listShapeDrift(runtime.pool);
          const problems = statuses.flatMap((a) => a.streams.map((s) => streamProblems(s, now)));
          const gapCount = problems.reduce((n, p) => n + p.gaps.length, 0);
          const failedCount = problems.reduce((n, p) => n + p.failed.length, 0);
          const lostCount = statuses.reduce((n, a) => n + a.lost.length, 0);
          const ok = gapCount + failedCount + lostCount === 0 && storage === undefined;
          if (!ok) process.exitCode = EXIT.failed;

          if (options.json) {
            printJson(statusJson(now, nightly?.next, workers, statuses, drift, ok, storage));
            return;
          }
          const demo = databaseName(config.databaseUrl) === config.demoDatabase;
          console.log(`next nightly sync: ${nightlyLine(nightly?.next, workers, demo)}`);
          if (storage) {
            console.log(
              `DATABASE CANNOT WRITE, last refused at ${formatInstant(storage.at)}: windows fail until it can ` +
                `(SQLSTATE ${storage.code}: ${storage.message})`,
            );
          }
          if (accounts.length === 0) console.log('no accounts registered');
          for (const { account, streams, warnings, lost, lastFullCheck: fullAt } of statuses) {
            const state = account.disabledAt ? ' [disabled: not in the nightly run]' : '';
            console.log(`\naccount ${account.name} (uid ${account.uid})${state}`);
            console.log(`  last full reconciliation  ${when(fullAt)}`);
            for (const warning of warnings) console.log(`  WARNING: ${warning}`);
            // Lost for good: the gap stays in every report of that range; only the exchange's own export has it.
            for (const l of lost) {
              console.log(
                `  LOST: ${l.stream}${l.scope ? ` ${l.scope}` : ''} ${formatInstant(l.windowStart.getTime())} .. ` +
                  `${formatInstant(l.windowEnd.getTime())} can no longer be read (the exchange serves from ` +
                  `${formatInstant(l.readableFrom.getTime())}): ${l.reason}`,
              );
            }
            for (const s of streams) {
              console.log(`  ${s.stream}${s.scope ? ` ${s.scope}` : ''}`);
              console.log(`    covered       ${ranges(s.covered)}`);
              // What lies beyond the exchange's horizon is told apart: no command can read it any more.
              const end = s.beyondHorizon.at(-1)?.end;
              // The stretch since the last sync is no gap until a nightly run is missed (FRESH_TAIL_MS):
              // said as the time since, not as a gap that alarms after every healthy sync.
              const fresh = freshTail(s, now);
              console.log(`    gaps          ${ranges(partsFrom(streamProblems(s, now).gaps, end))}`);
              if (fresh)
                console.log(
                  `    last synced   ${ago(now - fresh.start)} ago (covered up to ${formatInstant(fresh.start)})`,
                );
              if (s.beyondHorizon.length > 0) {
                console.log(
                  `    beyond horizon ${ranges(s.beyondHorizon)}: beyond the exchange's horizon, not recoverable`,
                );
              }
              if (s.failed.length > 0) console.log(`    failed        ${ranges(s.failed)}`);
              console.log(
                `    last success  ${when(s.lastSuccess)}${s.windowsOpen ? `; ${s.windowsOpen} window(s) open` : ''}`,
              );
              if (s.lastFailure) console.log(`    last failure  ${when(s.lastFailure.at)}: ${s.lastFailure.error}`);
            }
          }
          if (drift.length > 0) {
            console.log('\nexchange answers that differ from the contract (read anyway, unless REFUSED):');
            for (const row of drift) console.log(`  ${shapeDriftLine(row)}`);
          }
          if (!ok) {
            const lostText = lostCount > 0 ? `, ${lostCount} window(s) lost past the horizon` : '';
            console.log(`\nnot complete: ${gapCount} gap(s), ${failedCount} failed range(s)${lostText} (exit 1)`);
          }
        } finally {
          await runtime.close();
        }
      }),
    );
}
