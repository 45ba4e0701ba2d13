// The structured filters as one SQL condition over a snapshot's serving tables (sql/serve/catalog.sql),
// with every value a bound parameter, written from the filter table (filter-table.ts). Text filters
// are not here: the text indexes answer them.
//
// Posting conditions hold on one and the same posting, location conditions on one location: one such
// condition with a job mask test is that test alone (the job's bit mask of the values its postings or
// locations have means the same and needs no join); two or more, or one without a mask, join the
// postings (the locations) so that they hold on one row. The masks are written either way: they are
// implied by the same-row test and narrow it cheaply. A condition's SQL is written only when used, so
// every bound value is in the SQL.

import type { DuckDBValue } from '@duckdb/node-api';
import { FILTER_NAMES, FILTERS, type Filter, type JobFilters, type SqlContext } from './filter-table.js';
import type { Codes } from './snapshot.js';

export interface Condition {
  sql: string;
  params: Record<string, DuckDBValue>;
}

/** Bits of a mask column: 62 per BIGINT column (column0, column1, ... when a kind needs several). */
const BITS = 62;

export function filterCondition(f: JobFilters, prefix: string, codes: Codes): Condition {
  const params: Record<string, DuckDBValue> = {};
  let bound = 0;
  const c: SqlContext = {
    bind(value) {
      const name = `v${bound++}`;
      params[name] = value;
      return `$${name}`;
    },
    inList: (column, values) => `${column} IN (${values.map((v) => c.bind(v)).join(', ')})`,
    ts: (iso) => `${c.bind(iso)}::TIMESTAMPTZ`,
    mask(column, kind, values, blocks = 1) {
      const bits = new Array<bigint>(blocks).fill(0n);
      for (const value of values) {
        const code = codes.get(kind)?.get(value);
        if (code === undefined) continue; // nothing has it: adds nothing
        if (code >= BITS * blocks) return undefined;
        bits[Math.floor(code / BITS)]! |= 1n << BigInt(code % BITS);
      }
      const tests = bits.flatMap((b, i) => (b === 0n ? [] : [`(j.${blocks === 1 ? column : `${column}${i}`} & ${c.bind(b)}) <> 0`]));
      return tests.length === 0 ? 'false' : tests.length === 1 ? tests[0] : `(${tests.join(' OR ')})`;
    },
    hasMask: (column, has) => `(j.${column} & ${has ? 1 : 2}) <> 0`,
    prefix,
    f,
  };
  const job: string[] = [];
  const rows = { posting: new SameRow(), location: new SameRow() };
  for (const name of FILTER_NAMES) {
    const value = f[name];
    if (value === undefined) continue;
    const { test } = FILTERS[name] as Filter<typeof value>;
    if (test.on === 'job') job.push(test.sql(value, c));
    else if (test.on !== 'text' && !(test.impliedBy && f[test.impliedBy as keyof JobFilters] !== undefined)) {
      rows[test.on].add(() => test.sql(value, c), test.mask ? (test.mask(value, c) ?? null) : undefined);
    }
  }
  job.push(...rows.location.conditions(`${prefix}locations`, 'l'), ...rows.posting.conditions(`${prefix}postings`, 'p'));
  return { sql: job.join(' AND '), params };
}

/** The conditions on one row of postings or locations: their masks, and their SQL when a join is needed. */
class SameRow {
  private readonly sql: (() => string)[] = [];
  private readonly masks: string[] = [];
  private joined = false;

  /** `mask`: the job mask test (null when its value has no bit, undefined when the filter has none). */
  add(sql: () => string, mask: string | null | undefined): void {
    this.sql.push(sql);
    if (mask) this.masks.push(mask);
    else this.joined = true;
  }

  /** The conditions on the job row: the masks, and a join with `table` (as `alias`, which the SQL names) when needed. */
  conditions(table: string, alias: string): string[] {
    if (!this.joined && this.sql.length <= 1) return this.masks;
    return [...this.masks, `j.doc IN (SELECT ${alias}.doc FROM ${table} ${alias} WHERE ${this.sql.map((s) => s()).join(' AND ')})`];
  }
}
