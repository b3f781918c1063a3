export interface EndpointCounters {
  /** Every request that reached the endpoint. */
  requests: number;
  /** Answered with success (HTTP 200). */
  served: number;
  /** Answered with HTTP 429. */
  rateLimited: number;
  /** Answered with any other error, or not answered at all (injected resets). */
  errors: number;
}

/** Per-endpoint counts of what the simulator answered, for tests and benchmarks to assert on. */
export class Counters {
  readonly #byPath = new Map<string, EndpointCounters>();

  record(path: string, status: number): void {
    let entry = this.#byPath.get(path);
    if (!entry) {
      entry = { requests: 0, served: 0, rateLimited: 0, errors: 0 };
      this.#byPath.set(path, entry);
    }
    entry.requests++;
    if (status === 200) entry.served++;
    else if (status === 429) entry.rateLimited++;
    else entry.errors++;
  }

  snapshot(): Record<string, EndpointCounters> {
    const out: Record<string, EndpointCounters> = {};
    for (const [path, entry] of this.#byPath) out[path] = { ...entry };
    return out;
  }

  reset(): void {
    this.#byPath.clear();
  }
}
