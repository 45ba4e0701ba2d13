// The filter cache: the structured filters' matches as a mark per document (1: passes), kept for the most
// recent conditions of each set of serving tables, like a search engine's filter cache. A search or a trend
// with the same filters as an earlier one (the default currentness=current above all) then costs no query.

import type { QueryEngine } from '../db/engine.js';
import type { Condition } from './filter-sql.js';
import { shared } from './trend-count.js';

/** The documents of a set of serving tables: `${prefix}jobs`, numbered 0 .. size - 1. */
export interface Marked {
  prefix: string;
  size: number;
}

export class FilterCache {
  private readonly entries = new WeakMap<Marked, Map<string, Uint8Array>>();

  /** `capacity`: the conditions kept per set of tables, the least recently used dropped first. */
  constructor(
    private readonly engine: QueryEngine,
    private readonly capacity: number,
  ) {}

  /** The marks of `condition` (on the job row j) over `tables`, from the cache or one query. */
  async marks(tables: Marked, condition: Condition): Promise<Uint8Array> {
    const hit = this.cached(tables, condition);
    if (hit) return hit;
    const marks = shared(Uint8Array, tables.size);
    await this.engine.mark(`SELECT j.doc FROM ${tables.prefix}jobs j WHERE ${condition.sql}`, condition.params, marks);
    let cache = this.entries.get(tables);
    if (!cache) this.entries.set(tables, (cache = new Map<string, Uint8Array>()));
    cache.set(keyOf(condition), marks);
    if (cache.size > this.capacity) cache.delete(cache.keys().next().value!);
    return marks;
  }

  /** The marks of `condition` if the cache holds them (now the most recently used), else null. */
  cached(tables: Marked, condition: Condition): Uint8Array | null {
    const cache = this.entries.get(tables);
    const key = keyOf(condition);
    const hit = cache?.get(key);
    if (!cache || !hit) return null;
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
}

const keyOf = (condition: Condition) =>
  condition.sql + JSON.stringify(condition.params, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
