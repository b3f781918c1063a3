/**
 * Writes JSON text straight into one reusable byte buffer: a page of 500
 * records costs no intermediate strings, so serving pages creates almost no
 * garbage and no collector pauses. Only ASCII is written byte by byte;
 * anything else goes in as pre-encoded bytes.
 */
// "00".."99" as byte pairs: integers are written two digits per division.
const DIGIT_PAIRS = new Uint8Array(200);
for (let i = 0; i < 100; i++) {
  DIGIT_PAIRS[2 * i] = 48 + Math.floor(i / 10);
  DIGIT_PAIRS[2 * i + 1] = 48 + (i % 10);
}
const POWERS_OF_TEN = Array.from({ length: 17 }, (_, i) => 10 ** i);

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
    // Locals, not fields, in the loop: the optimizer keeps them in registers.
    const buffer = this.#buffer;
    let at = this.#at;
    for (let i = 0; i < text.length; i++) buffer[at++] = text.charCodeAt(i);
    this.#at = at;
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
    while (digits < 16 && value >= POWERS_OF_TEN[digits]!) digits++;
    this.#digitsBackward(value, digits);
    return this;
  }

  /** An integer count of 10^-decimals units as plain decimal text: (150000000, 8) -> 1.5. */
  fixed(units: number, decimals: number): this {
    if (units === 0) return this.byte(48);
    if (units < 0) this.byte(45);
    const magnitude = Math.abs(units);
    const scale = POWERS_OF_TEN[decimals]!;
    const whole = Math.floor(magnitude / scale);
    const fraction = magnitude - whole * scale;
    this.integer(whole);
    if (fraction === 0) return this;
    this.byte(46);
    // All `decimals` digits (leading zeros are part of the fixed width), then the trailing zeros
    // dropped: comparing bytes is cheaper than the float modulo it replaces.
    this.#digitsBackward(fraction, decimals);
    const buffer = this.#buffer;
    while (buffer[this.#at - 1] === 48) this.#at--;
    return this;
  }

  /** Writes `value` as exactly `width` digits (zero-padded), filling from the right: no allocation. */
  #digitsBackward(value: number, width: number): void {
    this.#ensure(width);
    const buffer = this.#buffer;
    let position = this.#at + width - 1;
    let rest = value;
    let left = width;
    while (left >= 2) {
      const next = Math.floor(rest / 100);
      const pair = (rest - next * 100) * 2;
      buffer[position--] = DIGIT_PAIRS[pair + 1]!;
      buffer[position--] = DIGIT_PAIRS[pair]!;
      rest = next;
      left -= 2;
    }
    if (left === 1) buffer[position] = 48 + (rest - Math.floor(rest / 10) * 10);
    this.#at += width;
  }

  /** A copy of what was written, safe to hand to the socket while the writer is reused. */
  toBuffer(): Buffer {
    return Buffer.from(this.#buffer.subarray(0, this.#at));
  }

  /** What was written, valid only until the next write: copy it before the writer is used again. */
  view(): Buffer {
    return this.#buffer.subarray(0, this.#at);
  }

  #ensure(extra: number): void {
    if (this.#at + extra <= this.#buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.#buffer.length * 2, this.#at + extra));
    this.#buffer.copy(grown, 0, 0, this.#at);
    this.#buffer = grown;
  }
}
