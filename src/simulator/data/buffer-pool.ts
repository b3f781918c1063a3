/**
 * Reusable response buffers. A fresh 100 KB buffer per page would be
 * external memory the collector has to chase (a full collection every few
 * hundred pages, visible in the latency tail); pooled buffers go back once the
 * response has been written.
 */
export class BufferPool {
  readonly #free: Buffer[] = [];

  constructor(
    readonly bufferSize = 256 * 1024,
    readonly maxFree = 32,
  ) {}

  /** A copy of `bytes` in a pooled buffer (or a plain one when it does not fit), and how to give it back. */
  copy(bytes: Uint8Array): { bytes: Buffer; release: () => void } {
    if (bytes.length > this.bufferSize) return { bytes: Buffer.from(bytes), release: () => {} };
    const buffer = this.#free.pop() ?? Buffer.allocUnsafeSlow(this.bufferSize);
    buffer.set(bytes, 0);
    let released = false;
    return {
      bytes: buffer.subarray(0, bytes.length),
      release: () => {
        if (released) return;
        released = true;
        if (this.#free.length < this.maxFree) this.#free.push(buffer);
      },
    };
  }
}
