/**
 * Sliding-window limiter: a key may make `limit` requests in any `windowMs`.
 * Each key keeps the times of its last `limit` admitted requests in a ring;
 * a request is admitted when the oldest of them has left the window.
 * Rejected requests are not recorded, as on the exchange.
 */
export class SlidingWindowLimiter {
  readonly #rings = new Map<string, { times: Float64Array; next: number; filled: number }>();

  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {}

  /** Admits (and records) the request, or returns false when the key's budget is spent. */
  tryTake(key: string, now: number): boolean {
    let ring = this.#rings.get(key);
    if (!ring) {
      ring = { times: new Float64Array(this.limit), next: 0, filled: 0 };
      this.#rings.set(key, ring);
    }
    if (ring.filled === this.limit) {
      const oldest = ring.times[ring.next]!;
      if (now - oldest < this.windowMs) return false;
    } else ring.filled++;
    ring.times[ring.next] = now;
    ring.next = (ring.next + 1) % this.limit;
    return true;
  }

  reset(): void {
    this.#rings.clear();
  }
}
