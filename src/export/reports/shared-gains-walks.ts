import { AsyncLocalStorage } from 'node:async_hooks';

import { WalkBroadcast } from './walk-broadcast.ts';

interface SharedWalk {
  readonly broadcast: WalkBroadcast<unknown>;
  /** Whether the walk has read what it reads outside its snapshot (walkInputsRead). */
  inputsRead: boolean;
  /** Readers told nothing yet: each is told once the inputs are read. */
  untold: number;
}

interface Sharing {
  /** The walks running in one `sharingGainsWalks` call, by what they walk. */
  readonly walks: Map<string, SharedWalk>;
  readonly options: SharingOptions;
}

interface SharingOptions {
  /** Told of each walk started (its key). */
  readonly onWalk?: (key: string) => void;
  /**
   * Told once per reader (per export) when the walk it reads has read the supplied costs and
   * proceeds: from then on an import changes none of its events.
   */
  readonly onInputsRead?: () => void;
  /**
   * A walk read to its end with every event held stays joinable for the rest of the batch: files
   * that must come from one snapshot (the tax-year pack's two) share it however late the second
   * reaches it. Not for a batch whose later files must see a history that moved on (the demo's).
   */
  readonly replayFinished?: boolean;
}

const sharing = new AsyncLocalStorage<Sharing>();

/**
 * Runs `work` (several exports side by side) with their gains walks shared: reports that walk the
 * same history the same way (realized-gains, its summary, income and its summary, of one account,
 * period and lot method) read one walk's events instead of each walking the whole history again.
 * They then also share its snapshot: the first export's reading of the database, which is what a
 * set of files exported together should agree on. Outside such a call every export walks alone.
 */
export function sharingGainsWalks<T>(work: () => Promise<T>, options: SharingOptions = {}): Promise<T> {
  return sharing.run({ walks: new Map(), options }, work);
}

/**
 * The events of `walk`, or of the same walk another export of the batch has started (joined from its
 * first event, walk-broadcast.ts), under `key`: everything the events depend on. The walk calls
 * `inputsRead` once it has read what it reads outside its snapshot (the supplied costs and proceeds).
 */
export function sharedWalk<T>(key: string, walk: (inputsRead: () => void) => AsyncGenerator<T>): AsyncGenerator<T> {
  const store = sharing.getStore();
  if (store === undefined) return walk(() => undefined);
  const { walks, options } = store;
  const running = walks.get(key);
  const joined = running?.broadcast.join() as AsyncGenerator<T> | undefined;
  if (running !== undefined && joined !== undefined) {
    if (running.inputsRead) queueMicrotask(() => options.onInputsRead?.());
    else running.untold++;
    return joined;
  }
  options.onWalk?.(key);
  const shared: SharedWalk = {
    broadcast: new WalkBroadcast<T>(
      walk(() => {
        shared.inputsRead = true;
        for (; shared.untold > 0; shared.untold--) options.onInputsRead?.();
      }),
      // Forgotten once its last reader leaves, unless the batch replays finished walks.
      () => {
        if (walks.get(key) === shared && !(options.replayFinished === true && shared.broadcast.replayable)) {
          walks.delete(key);
        }
      },
      undefined,
      options.replayFinished === true,
    ),
    inputsRead: false,
    untold: 1,
  };
  walks.set(key, shared);
  return shared.broadcast.join() as AsyncGenerator<T>;
}
