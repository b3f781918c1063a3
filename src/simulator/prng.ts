/**
 * Seeded pseudo-random numbers (sfc32). Every generator draws from its own
 * stream, named by a label, so adding a stream never shifts the numbers of
 * another: the same seed keeps producing the same data and credentials.
 */
export class Rng {
  #a: number;
  #b: number;
  #c: number;
  #d: number;

  constructor(seed: number, label = '') {
    const h = hashLabel(label, seed >>> 0);
    this.#a = h[0]!;
    this.#b = h[1]!;
    this.#c = h[2]!;
    this.#d = h[3]!;
    for (let i = 0; i < 16; i++) this.nextU32();
  }

  nextU32(): number {
    const t = (((this.#a + this.#b) | 0) + this.#d) | 0;
    this.#d = (this.#d + 1) | 0;
    this.#a = this.#b ^ (this.#b >>> 9);
    this.#b = (this.#c + (this.#c << 3)) | 0;
    this.#c = (this.#c << 21) | (this.#c >>> 11);
    this.#c = (this.#c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextU32() / 4294967296;
  }

  /** Uniform integer in [lo, hi] (both inclusive); exact up to 2^53. */
  int(lo: number, hi: number): number {
    const span = hi - lo + 1;
    if (span <= 4294967296) return lo + Math.floor(this.next() * span);
    return lo + Math.floor(((this.nextU32() * 4294967296 + this.nextU32()) / 18446744073709551616) * span);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  hex(length: number): string {
    let out = '';
    while (out.length < length) out += this.nextU32().toString(16).padStart(8, '0');
    return out.slice(0, length);
  }

  digits(length: number): string {
    let out = String(this.int(1, 9));
    while (out.length < length) out += String(this.int(0, 9));
    return out;
  }

  letters(length: number, alphabet = 'abcdefghijklmnopqrstuvwxyz'): string {
    let out = '';
    for (let i = 0; i < length; i++) out += alphabet[Math.floor(this.next() * alphabet.length)];
    return out;
  }
}

/** Stateless hash of a few integers to [0, 1): for values that must not depend on draw order. */
export function hashUnit(...parts: number[]): number {
  let h = 0x811c9dc5;
  for (const part of parts) {
    h = Math.imul(h ^ (part >>> 0), 0x01000193);
    h = Math.imul(h ^ Math.floor(part / 4294967296), 0x01000193);
    h ^= h >>> 15;
    h = Math.imul(h, 0x2c1b3c6d);
    h ^= h >>> 12;
  }
  return (h >>> 0) / 4294967296;
}

export function hashString(text: string, seed = 0): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

function hashLabel(label: string, seed: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < 4; i++) {
    let h = hashString(label, seed + i * 0x9e3779b9);
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
    out.push(h | 0);
  }
  return out;
}
