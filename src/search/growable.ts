// Typed arrays that grow as values are pushed: the index builder's lists, and query results.

/** A typed array that doubles when full. */
export class Growable<T extends Uint32Array | Uint16Array = Uint32Array> {
  array: T;
  length = 0;
  constructor(
    private readonly make: (length: number) => T,
    capacity = 4,
  ) {
    this.array = make(capacity);
  }
  push(value: number): void {
    if (this.length === this.array.length) {
      const bigger = this.make(this.array.length * 2);
      bigger.set(this.array);
      this.array = bigger;
    }
    this.array[this.length++] = value;
  }
  /** Lets the array go (the growable is spent). */
  release(): void {
    this.array = this.make(0);
    this.length = 0;
  }
}

export const uint32 = (length: number) => new Uint32Array(length);
/** Positions fit 16 bits (at most MAX_POSITION): half the builder's largest arrays. */
export const uint16 = (length: number) => new Uint16Array(length);
