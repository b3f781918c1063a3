/**
 * The simulated exchange clock. It decides which records exist yet, when a
 * pending transfer settles, and where the 90-day horizon lies. It follows
 * real time (plus an offset) by default; once frozen it only moves when told,
 * which makes tests deterministic.
 */
export class SimClock {
  #offset = 0;
  #frozenAt: number | undefined;

  constructor(initial?: number) {
    if (initial !== undefined) this.#frozenAt = initial;
  }

  now(): number {
    return this.#frozenAt ?? Date.now() + this.#offset;
  }

  get frozen(): boolean {
    return this.#frozenAt !== undefined;
  }

  /** Sets the time; a running clock keeps running from there, a frozen one stays frozen there. */
  set(ms: number): number {
    assertTime(ms, 'now');
    if (this.#frozenAt !== undefined) this.#frozenAt = ms;
    else this.#offset = ms - Date.now();
    return this.now();
  }

  advance(ms: number): number {
    if (!Number.isFinite(ms)) throw new RangeError('advanceMs: must be a finite number of milliseconds');
    return this.set(this.now() + ms);
  }

  freeze(): number {
    this.#frozenAt = this.now();
    return this.#frozenAt;
  }

  resume(): number {
    if (this.#frozenAt !== undefined) this.#offset = this.#frozenAt - Date.now();
    this.#frozenAt = undefined;
    return this.now();
  }
}

function assertTime(ms: number, field: string): void {
  if (!Number.isSafeInteger(ms) || ms < 0) throw new RangeError(`${field}: must be a non-negative integer of Unix ms`);
}
