export interface RequestLogEntry {
  method: string;
  path: string;
  /** The raw query string, without '?'. */
  query: string;
  /** HTTP status; 0 when the connection was destroyed without an answer. */
  status: number;
  /** The envelope's code, or null when nothing was answered. */
  code: string | null;
  /** Wall-clock time the request arrived, Unix ms. */
  time: number;
  /** The simulated clock at that moment. */
  simTime: number;
  /** The ACCESS-KEY header, when given. */
  key: string | null;
}

/** The last `capacity` API requests, oldest first. */
export class RequestLog {
  #entries: RequestLogEntry[] = [];

  constructor(readonly capacity = 10_000) {}

  add(entry: RequestLogEntry): void {
    this.#entries.push(entry);
    // Trim in chunks, so a full log does not shift the whole array on every request.
    if (this.#entries.length > this.capacity * 1.1) this.#entries = this.#entries.slice(-this.capacity);
  }

  list(limit?: number): RequestLogEntry[] {
    const all = this.#entries.length > this.capacity ? this.#entries.slice(-this.capacity) : this.#entries;
    return limit === undefined ? [...all] : all.slice(-limit);
  }

  clear(): void {
    this.#entries = [];
  }
}
