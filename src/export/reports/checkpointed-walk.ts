import type pg from 'pg';

import { checkpointInstants } from '../../accounting/gains/checkpoint-instants.ts';
import { pruneInputChanges } from '../../accounting/gains/gains-change-prune.ts';
import type { CheckpointKey } from '../../accounting/gains/gains-checkpoint-key.ts';
import {
  type Checkpoint,
  findCheckpoint,
  inputCounts,
  saveCheckpoints,
} from '../../accounting/gains/gains-checkpoint-store.ts';
import type { GainsEvent } from '../../accounting/gains/gains-event.ts';
import { lotMethodOf } from '../../accounting/gains/gains-method.ts';
import { ownMovesAwayBefore } from '../../accounting/gains/own-moves-away.ts';
import { SuppliedProceeds, type SuppliedSale } from '../../accounting/gains/supplied-proceeds.ts';
import { walkHistory } from '../../accounting/gains/walk-history.ts';
import { LotEngine, type LotEngineState } from '../../accounting/lots/lot-engine.ts';
import type { LedgerEntry } from '../../booking/ledger-entry.ts';
import { BEGIN_SNAPSHOT, BEGINNING, fetchLedgerEntries } from '../../booking/ledger-entry-cursor.ts';
import { logger } from '../../logging/logger.ts';
import type { ReportParams } from '../report-definition.ts';
import type { LotSettings, OpenBook } from './gains-source.ts';

/** The most open lots the states held for storing may copy in all (each a few hundred bytes). */
const MAX_CAPTURED_LOTS = 100_000;

const lotsIn = (state: LotEngineState) => state.coins.reduce((n, coin) => n + coin.lots.lots.length, 0);

/**
 * A lot method's walk for [start, end) that costs the period, not the history: it starts from the
 * newest valid checkpoint at or before the period's start (gains-checkpoint-store.ts: valid means
 * nothing it depends on changed since), or from the first record when there is none, and stores
 * the lot state at every month start it passes and at the period's start and end, for the next
 * export (the newest of them, should an account hold so many open lots that keeping every state
 * until the walk ends would cost more than MAX_CAPTURED_LOTS copies). The events it yields are the
 * full walk's (test/accounting/gains-checkpoint.test.ts).
 *
 * One REPEATABLE READ snapshot holds the checkpoint's lookup, the records, the prices and the counts
 * stored with the new checkpoints; those are written afterwards in a transaction of their own (the
 * walk's is read-only), then the account's change log is pruned (gains-change-prune.ts), and a
 * failure of either costs the next export its shortcut, not this export its rows.
 */
export async function* checkpointedWalk(
  params: ReportParams,
  db: pg.ClientBase,
  settings: LotSettings,
  openBook: OpenBook,
  key: CheckpointKey,
  nowMs: number,
  suppliedProceeds: readonly SuppliedSale[] = [],
  /** Called once the snapshot holds (after its first read): what changes later, the walk does not see. */
  snapshotTaken: () => void = () => undefined,
): AsyncGenerator<GainsEvent> {
  const startMs = params.period.start.getTime();
  const endMs = params.period.end.getTime();
  const captured: Checkpoint[] = [];
  let counts: string[] = [];
  await db.query(BEGIN_SNAPSHOT);
  let done = false;
  try {
    const checkpoint = await findCheckpoint(db, key, startMs);
    snapshotTaken();
    const fromMs = checkpoint?.asOfMs ?? BEGINNING.getTime();
    const book = await openBook(db, params.accountId, settings, checkpoint === null ? undefined : fromMs);
    try {
      const method = lotMethodOf(settings.method);
      const engine =
        checkpoint === null
          ? new LotEngine(method, book.currency)
          : LotEngine.restore(method, book.currency, checkpoint.state);
      // From the first record, there is nothing to store before the first entry.
      const instants = (firstAtMs: number | null) =>
        checkpointInstants({
          afterMs: checkpoint === null ? (firstAtMs ?? endMs) : fromMs,
          untilMs: Math.min(endMs, nowMs),
          tz: params.period.tz,
          also: [startMs, endMs],
        });
      let heldLots = 0;
      const capture = (asOfMs: number) => {
        const state = engine.snapshot();
        captured.push({ asOfMs, state });
        heldLots += lotsIn(state);
        // The walk's memory stays bounded however many months it passes: the oldest states go first.
        while (heldLots > MAX_CAPTURED_LOTS && captured.length > 1) heldLots -= lotsIn(captured.shift()!.state);
      };
      const read = fetchLedgerEntries(db, params.accountId, { start: new Date(fromMs), end: params.period.end });
      const entries = capturingAt(read, instants, capture);
      // The lots are the checkpoint's; what own moves hold away then, the records' (own-moves-away.ts).
      const away = checkpoint === null ? undefined : await ownMovesAwayBefore(db, params.accountId, fromMs);
      const proceeds = new SuppliedProceeds(suppliedProceeds, book.currency);
      for await (const event of walkHistory(
        entries,
        book,
        engine,
        away === undefined ? { proceeds } : { away, proceeds },
      )) {
        const atMs = event.kind === 'disposal' ? event.match.disposedAtMs : event.atMs;
        if (atMs >= startMs && atMs < endMs) yield event;
      }
    } finally {
      await book.close();
    }
    counts = await inputCounts(
      db,
      params.accountId,
      captured.map((c) => c.asOfMs),
    );
    await db.query('COMMIT');
    done = true;
  } finally {
    // An error, or a consumer that stopped early: end the transaction, the cursor with it.
    if (!done) await db.query('ROLLBACK');
  }
  try {
    await saveCheckpoints(
      db,
      key,
      captured.map((c, i) => ({ ...c, inputCount: counts[i]! })),
    );
  } catch (error) {
    logger('gains').warn({ err: error, accountId: key.accountId, method: key.method }, 'gains checkpoints not stored');
  }
  try {
    // The change log up to the instants just stored is merged now, while they are the newest.
    await pruneInputChanges(db, key.accountId);
  } catch (error) {
    logger('gains').warn({ err: error, accountId: key.accountId }, 'gains change log not pruned');
  }
}

/**
 * Passes the entries through and calls `capture(instant)` for each instant once every entry
 * before it has been walked: walkHistory asks for the next entry only after it has handed out the
 * events of the one before, so at that moment the engine holds exactly the state at the instant.
 * The instants are asked for at the first entry (null: there was none) and the rest captured at
 * the end: the state after the last entry before the read's end is the state at each of them.
 */
async function* capturingAt(
  entries: AsyncIterable<LedgerEntry>,
  instantsAfter: (firstAtMs: number | null) => number[],
  capture: (asOfMs: number) => void,
): AsyncGenerator<LedgerEntry> {
  let instants: number[] | undefined;
  let next = 0;
  for await (const entry of entries) {
    instants ??= instantsAfter(entry.atMs);
    while (next < instants.length && instants[next]! <= entry.atMs) capture(instants[next++]!);
    yield entry;
  }
  instants ??= instantsAfter(null);
  while (next < instants.length) capture(instants[next++]!);
}
