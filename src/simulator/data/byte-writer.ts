/**
 * Writes JSON text straight into one reusable byte buffer: a page of 500
 * records costs no intermediate strings, so serving pages creates almost no
 * garbage and no collector pauses. Only ASCII is written byte by byte;
 * anything else goes in as pre-encoded bytes.
 */
export class ByteWriter {
  #buffer: Buffer;
  #at = 0;

  constructor(initialSize = 256 * 1024) {
    this.#buffer = Buffer.allocUnsafe(initialSize);
  }

  reset(): this {
    this.#at = 0;
    return this;
  }

  /** ASCII text only. */
  ascii(text: string): this {
    this.#ensure(text.length);
    for (let i = 0; i < text.length; i++) this.#buffer[this.#at++] = text.charCodeAt(i);
    return this;
  }

  bytes(chunk: Uint8Array): this {
    this.#ensure(chunk.length);
    this.#buffer.set(chunk, this.#at);
    this.#at += chunk.length;
    return this;
  }

  byte(code: number): this {
    this.#ensure(1);
    this.#buffer[this.#at++] = code;
    return this;
  }

  /** A non-negative integer below 2^53, in decimal. */
  integer(value: number): this {
    let digits = 1;
    for (let power = 10; power <= value; power *= 10) digits++;
    this.#digitsBackward(value, digits);
    return this;
  }

  /** An integer count of 10^-decimals units as plain decimal text: (150000000, 8) -> 1.5. */
  fixed(units: number, decimals: number): this {
    if (units === 0) return this.byte(48);
    if (units < 0) this.byte(45);
    const magnitude = Math.abs(units);
    const scale = 10 ** decimals;
    const whole = Math.floor(magnitude / scale);
    let fraction = magnitude - whole * scale;
    this.integer(whole);
    if (fraction === 0) return this;
    let digits = decimals;
    while (fraction % 10 === 0) {
      fraction /= 10;
      digits--;
    }
    this.byte(46);
    // Leading zeros of the fraction are part of its fixed width.
    this.#digitsBackward(fraction, digits);
    return this;
  }

  /** Writes `value` as exactly `width` digits (zero-padded), filling from the right: no allocation. */
  #digitsBackward(value: number, width: number): void {
    this.#ensure(width);
    let position = this.#at + width - 1;
    let rest = value;
    for (let i = 0; i < width; i++) {
      const next = Math.floor(rest / 10);
      this.#buffer[position--] = 48 + (rest - next * 10);
      rest = next;
    }
    this.#at += width;
  }

  /** A copy of what was written, safe to hand to the socket while the writer is reused. */
  toBuffer(): Buffer {
    return Buffer.from(this.#buffer.subarray(0, this.#at));
  }

  #ensure(extra: number): void {
    if (this.#at + extra <= this.#buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.#buffer.length * 2, this.#at + extra));
    this.#buffer.copy(grown, 0, 0, this.#at);
    this.#buffer = grown;
  }
}
