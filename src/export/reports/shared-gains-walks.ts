import { AsyncLocalStorage } from 'node:async_hooks';

import { WalkBroadcast } from './walk-broadcast.ts';

interface Sharing {
  /** The walks running in one `sharingGainsWalks` call, by what they walk. */
  readonly walks: Map<string, WalkBroadcast<unknown>>;
  readonly onWalk: ((key: string) => void) | undefined;
}

const sharing = new AsyncLocalStorage<Sharing>();

/**
 * Runs `work` (several exports side by side) with their gains walks shared: reports that walk the
 * same history the same way (realized-gains, its summary, income and its summary, of one account,
 * period and lot method) read one walk's events instead of each walking the whole history again.
 * They then also share its snapshot: the first export's reading of the database, which is what a
 * set of files exported together should agree on. Outside such a call every export walks alone.
 */
export function sharingGainsWalks<T>(
  work: () => Promise<T>,
  options: { onWalk?: (key: string) => void } = {},
): Promise<T> {
  return sharing.run({ walks: new Map(), onWalk: options.onWalk }, work);
}

/**
 * The events of `walk`, or of the same walk another export of the batch has started (joined from its
 * first event, walk-broadcast.ts), under `key`: everything the events depend on.
 */
export function sharedWalk<T>(key: string, walk: () => AsyncGenerator<T>): AsyncGenerator<T> {
  const store = sharing.getStore();
  if (store === undefined) return walk();
  const walks = store.walks as Map<string, WalkBroadcast<T>>;
  const joined = walks.get(key)?.join();
  if (joined !== undefined) return joined;
  store.onWalk?.(key);
  const broadcast: WalkBroadcast<T> = new WalkBroadcast<T>(walk(), () => {
    if (walks.get(key) === broadcast) walks.delete(key);
  });
  walks.set(key, broadcast);
  return broadcast.join()!;
}
