// Seeded randomness: the sfc32 generator, integer hashing for per-item seeds, and Zipf and weighted samplers.

/** murmur3's 32-bit finaliser: a bijection on 32-bit integers, so distinct inputs give distinct outputs. */
export function mix32(value: number): number {
  let h = value >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Hashes a list of integers into one 32-bit value. */
export function hashInts(...values: number[]): number {
  let h = 0x9e3779b9;
  for (const value of values) h = mix32(h ^ mix32((value >>> 0) + Math.floor(value / 4294967296)));
  return h;
}

/** A hash of the key as a float in [0, 1). */
export function hashFloat(...values: number[]): number {
  return hashInts(...values) / 4294967296;
}

export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** sfc32: small, fast and well distributed; seeded by integers so every item can have its own stream. */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(...seed: number[]) {
    const h = hashInts(...seed);
    this.a = mix32(h ^ 0x243f6a88);
    this.b = mix32(h ^ 0x85a308d3);
    this.c = mix32(h ^ 0x13198a2e);
    this.d = 1;
    for (let i = 0; i < 6; i += 1) this.next();
  }

  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  float(): number {
    return this.next() / 4294967296;
  }

  int(n: number): number {
    return Math.floor(this.float() * n);
  }

  range(low: number, high: number): number {
    return low + this.int(high - low + 1);
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  /** A geometric number of trials until the first success with probability p (at least 1). */
  geometric(p: number): number {
    return 1 + Math.floor(Math.log(1 - this.float()) / Math.log(1 - p));
  }

  /** Up to k distinct indexes below n, in draw order. */
  sample(n: number, k: number): number[] {
    const chosen: number[] = [];
    while (chosen.length < Math.min(k, n)) {
      const i = this.int(n);
      if (!chosen.includes(i)) chosen.push(i);
    }
    return chosen;
  }

  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i -= 1) {
      const j = this.int(i + 1);
      [items[i], items[j]] = [items[j]!, items[i]!];
    }
    return items;
  }
}

/** Cumulative weights for sampling an index by weight with a binary search. */
export class Weighted {
  private readonly cumulative: Float64Array;

  constructor(weights: ArrayLike<number>) {
    this.cumulative = new Float64Array(weights.length);
    let total = 0;
    for (let i = 0; i < weights.length; i += 1) {
      total += weights[i]!;
      this.cumulative[i] = total;
    }
  }

  get size(): number {
    return this.cumulative.length;
  }

  /** The index whose weight band holds u in [0, 1). */
  at(u: number): number {
    const target = u * this.cumulative[this.cumulative.length - 1]!;
    let low = 0;
    let high = this.cumulative.length - 1;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.cumulative[mid]! > target) high = mid;
      else low = mid + 1;
    }
    return low;
  }

  draw(rng: Rng): number {
    return this.at(rng.float());
  }
}

/** Zipf weights 1 / (rank + offset)^exponent for n ranks. */
export function zipf(n: number, exponent = 1, offset = 1): Weighted {
  const weights = new Float64Array(n);
  for (let i = 0; i < n; i += 1) weights[i] = 1 / Math.pow(i + offset, exponent);
  return new Weighted(weights);
}

/** Picks one of [value, weight] pairs. */
export function pickWeighted<T>(rng: Rng, pairs: readonly (readonly [T, number])[]): T {
  let total = 0;
  for (const [, weight] of pairs) total += weight;
  let u = rng.float() * total;
  for (const [value, weight] of pairs) {
    u -= weight;
    if (u < 0) return value;
  }
  return pairs[pairs.length - 1]![0];
}

/** A random lowercase RFC 4122 version-4 UUID drawn from the generator. */
export function uuid(rng: Rng): string {
  const hex = (n: number) => (n >>> 0).toString(16).padStart(8, '0');
  const a = hex(rng.next());
  const b = hex((rng.next() & 0xffff0fff) | 0x00004000);
  const c = hex((rng.next() & 0x3fffffff) | 0x80000000);
  const d = hex(rng.next());
  return `${a}-${b.slice(0, 4)}-${b.slice(4)}-${c.slice(0, 4)}-${c.slice(4)}${d}`;
}
