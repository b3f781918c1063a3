import { TransientError } from '../../errors/index.ts';

/** Events read from the walk at a time, and let go at a time once every reader has passed them. */
const PULL_AT_ONCE = 256;
const DROP_AT_ONCE = 4_096;

/**
 * The events of one walk, handed to several readers, each from the first event: the walk runs once,
 * at the pace of its fastest reader (never more than MAX_AHEAD events before its slowest), and each
 * reader sees every event in order. A reader may join while the first JOIN_WINDOW events are still
 * held; after that the broadcast refuses it (`join` returns undefined) and it walks on its own.
 */
export class WalkBroadcast<T> {
  /** Events from index `#base` of the walk on; the ones every reader has passed are let go. */
  #events: T[] = [];
  #base = 0;
  #joinable = true;
  #done = false;
  #failure: { error: unknown } | undefined;
  #pulling: Promise<void> | undefined;
  /** Readers held back by `maxAhead`, woken when the slowest one moves on. */
  #held: (() => void)[] = [];
  readonly #readers = new Set<{ next: number }>();

  /**
   * @param source the walk, pulled as readers need its events; it runs on its first reader's
   *   connection, so that reader leaving before the end ends it for everyone (onOwnerLeft).
   * @param onIdle called once the last reader has left (its registry forgets it then).
   */
  constructor(
    private readonly source: AsyncIterator<T>,
    private readonly onIdle: () => void,
    private readonly limits = { joinWindow: 20_000, maxAhead: 40_000 },
    private readonly replayAfterEnd = false,
  ) {}

  /**
   * Walked to its end with every event still held (a walk shorter than the join window): a reader
   * joining now reads it all again from memory, as if it had been there from the start.
   */
  get replayable(): boolean {
    return this.#done && this.#failure === undefined && this.#joinable;
  }

  /** A reader of every event from the first, or undefined when the first events are let go. */
  join(): AsyncGenerator<T> | undefined {
    if (!this.#joinable) return undefined;
    const reader = { next: 0 };
    this.#readers.add(reader);
    return this.#read(reader, this.#readers.size === 1);
  }

  async *#read(reader: { next: number }, owner: boolean): AsyncGenerator<T> {
    try {
      for (;;) {
        const index = reader.next - this.#base;
        if (index < this.#events.length) {
          const event = this.#events[index]!;
          reader.next++;
          this.#letGo();
          yield event;
          continue;
        }
        if (this.#failure) throw this.#failure.error;
        if (this.#done) return;
        if (this.#events.length >= this.limits.maxAhead) await new Promise<void>((r) => this.#held.push(r));
        else await this.#pull();
      }
    } finally {
      this.#readers.delete(reader);
      if (owner && !this.#done) {
        // The walk reads through the first reader's connection, which its export is closing now.
        this.#failure ??= { error: new SharedWalkEndedError() };
        this.#done = true;
        void this.source.return?.(undefined);
        for (const wake of this.#held.splice(0)) wake();
      }
      this.#letGo();
      if (this.#readers.size === 0) {
        // Kept joinable only when asked (replayAfterEnd) and read to its end with every event held:
        // then it is read again from memory (the source is done with its owner's connection).
        if (!this.replayAfterEnd || !this.#done || this.#failure !== undefined) this.#joinable = false;
        this.onIdle();
      }
    }
  }

  /** One more batch of events from the walk; readers arriving meanwhile wait for the same batch. */
  #pull(): Promise<void> {
    this.#pulling ??= (async () => {
      try {
        for (let i = 0; i < PULL_AT_ONCE && !this.#done; i++) {
          const result = await this.source.next();
          if (result.done) this.#done = true;
          else this.#events.push(result.value);
        }
      } catch (error) {
        this.#failure ??= { error };
        this.#done = true;
      } finally {
        this.#pulling = undefined;
      }
    })();
    return this.#pulling;
  }

  /**
   * Once the join window has passed, drops the events every reader has read (a few thousand at a
   * time: dropping one by one would copy the array for every event) and wakes the readers held back.
   */
  #letGo(): void {
    if (this.#joinable && this.#events.length < this.limits.joinWindow) return;
    this.#joinable = false;
    let slowest = this.#base + this.#events.length;
    for (const r of this.#readers) slowest = Math.min(slowest, r.next);
    const passed = slowest - this.#base;
    const dropAt = Math.max(1, Math.min(DROP_AT_ONCE, Math.floor(this.limits.maxAhead / 2)));
    if (passed >= dropAt || (passed > 0 && this.#readers.size === 0)) {
      this.#events = this.#events.slice(passed);
      this.#base = slowest;
    }
    if (this.#held.length > 0 && this.#events.length < this.limits.maxAhead) {
      for (const wake of this.#held.splice(0)) wake();
    }
  }
}

/** The export whose connection ran a shared walk ended before the walk did (it failed or stopped). */
export class SharedWalkEndedError extends TransientError {
  constructor() {
    super('the gains walk shared with another export ended with that export; export this report again', {
      code: 'SHARED_WALK_ENDED',
    });
  }
}
