// Relevance exactly as PostgreSQL 18 computes it (DESIGN.md 4): ts_rank('{0.1, 0, 0, 1.0}', title_A || description_D,
// query) with normalization 0, where title_A = setweight(to_tsvector('jps_english', title), 'A') and description_D
// likewise with 'D'. The C code (src/backend/utils/adt/tsrank.c, tsvector_op.c) computes in float4; every value it
// stores into a `float` is rounded here with Math.fround, and everything it computes in double stays a JS number.

import { pgQsort } from './pg-qsort.js';
import type { Query } from './query.js';

export type Field = 'title' | 'description';

/**
 * One document as an inverted index holds it, per field: each lexeme's ascending positions in to_tsvector of that
 * field alone (at most 255 a lexeme, at most 16383, as analyze.ts makes them).
 */
export interface RankSource {
  positions(lexeme: string, field: Field): ArrayLike<number> | undefined;
  /** The field's lexemes that start with `prefix`, in any order. */
  lexemesWithPrefix(prefix: string, field: Field): readonly string[];
  /** True when neither field has a lexeme (ts_rank is then 0). Omit it otherwise, as for any matching document. */
  readonly empty?: boolean;
}

type Tsvector = ReadonlyMap<string, readonly number[]>;

/** A RankSource over two tsvector() maps (the description's is empty for a null description). */
export function mapSource(title: Tsvector, description: Tsvector): RankSource {
  return {
    positions: (lexeme, field) => (field === 'title' ? title : description).get(lexeme),
    lexemesWithPrefix: (prefix, field) => [...(field === 'title' ? title : description).keys()].filter((l) => l.startsWith(prefix)),
    empty: title.size === 0 && description.size === 0,
  };
}

/** The largest position of a tsvector (0 when empty): what tsvector_concat shifts the right vector by. */
export function maxPosition(vector: Tsvector): number {
  let max = 0;
  for (const positions of vector.values()) max = Math.max(max, positions[positions.length - 1] ?? 0);
  return max;
}

// WordEntryPos limits: positions stop at MAXENTRYPOS - 1, a lexeme keeps at most MAXNUMPOS of them.
const LAST_POSITION = 16383;
const MAX_NUM_POS = 256;
// w[] of calc_rank: getWeights stores the float4 array elements; A is w[3], D is w[0].
const WEIGHT_A = 1;
const WEIGHT_D = Math.fround(0.1);
const NO_MATCH_AND = Math.fround(1e-20);
const SUM_INVERSE_SQUARES = 1.64493406685;

/** word_distance(): a float4 of a double expression, 1e-30f beyond 100. Index 101 stands for every longer distance. */
const WORD_DISTANCE = Float64Array.from({ length: 102 }, (_, d) =>
  d > 100 ? Math.fround(1e-30) : Math.fround(1.0 / (1.005 + 0.05 * Math.exp(d / 1.5 - 2))),
);

/** One lexeme of title_A || description_D: its positions, the first titleCount of weight A and the rest of weight D. */
interface Entry {
  positions: number[];
  titleCount: number;
}

/**
 * tsvector_concat (with add_pos) for one lexeme: the title's positions, then the description's shifted by the title's
 * maximum position and capped at 16383, added while the lexeme has fewer than 256 and its last one is not 16383.
 */
function concatEntry(title: ArrayLike<number> | undefined, description: ArrayLike<number> | undefined, shift: number): Entry {
  const positions = title ? Array.from(title) : [];
  const titleCount = positions.length;
  for (let i = 0; description && i < description.length; i += 1) {
    if (positions.length >= MAX_NUM_POS || positions[positions.length - 1] === LAST_POSITION) break;
    positions.push(Math.min(description[i]! + shift, LAST_POSITION));
  }
  return { positions, titleCount };
}

interface Operand {
  lexeme: string;
  prefix: boolean;
  bytes: Buffer;
}

/** find_wordentry: the entry of a lexeme, or of every lexeme starting with a prefix, in tsvector (byte) order. */
function findEntries(item: Operand, doc: RankSource, shift: number): Entry[] {
  if (!item.prefix) {
    const title = doc.positions(item.lexeme, 'title');
    const description = doc.positions(item.lexeme, 'description');
    return title || description ? [concatEntry(title, description, shift)] : [];
  }
  const lexemes = [...new Set([...doc.lexemesWithPrefix(item.lexeme, 'title'), ...doc.lexemesWithPrefix(item.lexeme, 'description')])];
  return lexemes
    .map((lexeme) => ({ lexeme, bytes: Buffer.from(lexeme, 'utf8') }))
    .sort((a, b) => Buffer.compare(a.bytes, b.bytes))
    .map(({ lexeme }) => concatEntry(doc.positions(lexeme, 'title'), doc.positions(lexeme, 'description'), shift));
}

const ENTRY_SCORES = new Float64Array((MAX_NUM_POS + 1) * (MAX_NUM_POS + 1)).fill(NaN);

/**
 * calc_rank_or's term for one entry of nt A positions then nd D positions: resj sums w/(j+1)^2 in float4, wjm is the
 * first maximal weight (at jm). Memoized: it depends on (nt, nd) only.
 */
function entryScore(nt: number, nd: number): number {
  const key = nt * (MAX_NUM_POS + 1) + nd;
  const known = nt <= MAX_NUM_POS && nd <= MAX_NUM_POS ? ENTRY_SCORES[key]! : NaN;
  if (!Number.isNaN(known)) return known;
  let resj = 0;
  let wjm = -1;
  let jm = 0;
  for (let j = 0; j < nt + nd; j += 1) {
    const w = j < nt ? WEIGHT_A : WEIGHT_D;
    resj = Math.fround(resj + Math.fround(w / ((j + 1) * (j + 1))));
    if (w > wjm) {
      wjm = w;
      jm = j;
    }
  }
  const score = Math.fround(Math.fround(wjm + resj) - Math.fround(wjm / ((jm + 1) * (jm + 1))));
  if (nt <= MAX_NUM_POS && nd <= MAX_NUM_POS) ENTRY_SCORES[key] = score;
  return score;
}

/** calc_rank_or: the float4 sum over every entry of every distinct operand of its score / (pi^2/6), over their number. */
function calcRankOr(items: Operand[], doc: RankSource, shift: number): number {
  let res = 0;
  for (const item of items) {
    for (const { positions, titleCount } of findEntries(item, doc, shift)) {
      res = Math.fround(res + entryScore(titleCount, positions.length - titleCount) / SUM_INVERSE_SQUARES);
    }
  }
  return items.length > 0 ? Math.fround(res / items.length) : res;
}

/** sqrt(wpos * wpos * word_distance) of calc_rank_and: float4 products, a double square root stored as float4. */
function pairWeight(w1: number, w2: number, distance: number): number {
  return Math.fround(Math.sqrt(Math.fround(Math.fround(w1 * w2) * WORD_DISTANCE[Math.min(distance, 101)]!)));
}

/**
 * calc_rank_and: every position of each entry of operand i against every position of the entry operand k < i kept
 * last (for a prefix, its last lexeme in byte order: pos[k] is overwritten entry by entry), equal positions skipped;
 * the weights combine as 1 - (1 - res)(1 - w) in double, stored as float4. -1 when no pair was found.
 */
function calcRankAnd(items: Operand[], doc: RankSource, shift: number): number {
  let res = -1;
  const kept: (Entry | undefined)[] = [];
  for (let i = 0; i < items.length; i += 1) {
    for (const entry of findEntries(items[i]!, doc, shift)) {
      kept[i] = entry;
      for (let k = 0; k < i; k += 1) {
        const other = kept[k];
        if (!other) continue;
        for (let l = 0; l < entry.positions.length; l += 1) {
          const wl = l < entry.titleCount ? WEIGHT_A : WEIGHT_D;
          for (let p = 0; p < other.positions.length; p += 1) {
            const distance = Math.abs(entry.positions[l]! - other.positions[p]!);
            if (distance === 0) continue;
            const curw = pairWeight(wl, p < other.titleCount ? WEIGHT_A : WEIGHT_D, distance);
            res = res < 0 ? curw : Math.fround(1.0 - (1.0 - res) * (1.0 - curw));
          }
        }
      }
    }
  }
  return res;
}

/** The operands in the order of the tsquery's items: prefix notation, right argument first (reverse reading order). */
function operands(q: Query, out: Operand[] = []): Operand[] {
  const add = (lexeme: string, prefix: boolean) => out.push({ lexeme, prefix, bytes: Buffer.from(lexeme, 'utf8') });
  switch (q.kind) {
    case 'term':
      add(q.lexeme, q.prefix);
      break;
    case 'phrase':
      for (let i = q.items.length - 1; i >= 0; i -= 1) add(q.items[i]!.lexeme, q.items[i]!.prefix);
      break;
    case 'not':
      operands(q.arg, out);
      break;
    default:
      for (let i = q.args.length - 1; i >= 0; i -= 1) operands(q.args[i]!, out);
  }
  return out;
}

/**
 * SortAndUniqItems: operands sorted by lexeme (tsCompareString, prefix flag ignored) with PostgreSQL's own qsort, then
 * deduplicated keeping the first of equals, so `x & x:*` keeps whichever that sort puts first (not a stable order).
 */
function sortAndUniq(items: Operand[]): Operand[] {
  const sorted = [...items];
  pgQsort(sorted, (a, b) => Buffer.compare(a.bytes, b.bytes));
  return sorted.filter((item, i) => i === 0 || Buffer.compare(item.bytes, sorted[i - 1]!.bytes) !== 0);
}

/**
 * The lexemes calc_rank_and ranks a query by, in its order, when the query is an AND or a phrase of two or more
 * distinct lexemes none of which is a prefix; null otherwise. rankAnd then ranks a document from their positions.
 */
export function andLexemes(query: Query): string[] | null {
  if (query.kind !== 'and' && query.kind !== 'phrase') return null;
  const items = sortAndUniq(operands(query));
  return items.length >= 2 && items.every((item) => !item.prefix) ? items.map((item) => item.lexeme) : null;
}

/**
 * calc_rank_and of one document, as tsRank gives it for the query of andLexemes, from each lexeme's positions in
 * title_A || description_D: positions[i] holds lengths[i] of them (0 when the lexeme is absent), the first
 * titleCounts[i] of weight A. concatPositions fills them.
 */
export function rankAnd(positions: Int32Array[], lengths: Int32Array, titleCounts: Int32Array): number {
  let res = -1;
  for (let i = 1; i < positions.length; i += 1) {
    const a = positions[i]!;
    for (let k = 0; k < i; k += 1) {
      const b = positions[k]!;
      for (let l = 0; l < lengths[i]!; l += 1) {
        const wl = l < titleCounts[i]! ? WEIGHT_A : WEIGHT_D;
        for (let p = 0; p < lengths[k]!; p += 1) {
          const distance = Math.abs(a[l]! - b[p]!);
          if (distance === 0) continue;
          const curw = pairWeight(wl, p < titleCounts[k]! ? WEIGHT_A : WEIGHT_D, distance);
          res = res < 0 ? curw : Math.fround(1.0 - (1.0 - res) * (1.0 - curw));
        }
      }
    }
  }
  return res < 0 ? NO_MATCH_AND : res;
}

/**
 * concatEntry into a buffer of MAX_NUM_POS: the title's positions (title[from, to)), then the description's
 * (description[dFrom, dTo)) shifted by `shift`; returns how many it holds.
 */
export function concatPositions(
  into: Int32Array,
  title: Uint16Array,
  from: number,
  to: number,
  description: Uint16Array,
  dFrom: number,
  dTo: number,
  shift: number,
): number {
  let n = 0;
  for (let i = from; i < to; i += 1) into[n++] = title[i]!;
  for (let i = dFrom; i < dTo; i += 1) {
    if (n >= MAX_NUM_POS || (n > 0 && into[n - 1] === LAST_POSITION)) break;
    into[n++] = Math.min(description[i]! + shift, LAST_POSITION);
  }
  return n;
}

export const MAX_POSITIONS = MAX_NUM_POS;

export type Ranker = (doc: RankSource, titleMaxPosition: number) => number;

/** calc_rank for one query, prepared once: AND and phrase roots rank with calc_rank_and, anything else with calc_rank_or. */
export function ranker(query: Query): Ranker {
  const items = sortAndUniq(operands(query));
  if (items.length === 0) return () => 0;
  const and = (query.kind === 'and' || query.kind === 'phrase') && items.length >= 2;
  const single = !and && items.length === 1 && !items[0]!.prefix ? items[0]!.lexeme : undefined;
  return (doc, titleMaxPosition) => {
    if (doc.empty) return 0;
    if (single !== undefined) return singleTerm(single, doc, titleMaxPosition);
    const res = and ? calcRankAnd(items, doc, titleMaxPosition) : calcRankOr(items, doc, titleMaxPosition);
    return res < 0 ? NO_MATCH_AND : res;
  };
}

function singleTerm(lexeme: string, doc: RankSource, shift: number): number {
  const { positions, titleCount } = concatEntry(doc.positions(lexeme, 'title'), doc.positions(lexeme, 'description'), shift);
  return tsRankSingle(titleCount, positions.length - titleCount);
}

const RANKERS = new WeakMap<Query, Ranker>();

/**
 * ts_rank('{0.1, 0, 0, 1.0}', title_A || description_D, query) as a float4 (a JS number that Math.fround leaves as
 * is). titleMaxPosition is the largest position in to_tsvector('jps_english', title), 0 for a title without lexemes
 * (maxPosition of its tsvector() map): tsvector_concat shifts the description's positions by it.
 */
export function tsRank(query: Query, doc: RankSource, titleMaxPosition: number): number {
  let rank = RANKERS.get(query);
  if (!rank) RANKERS.set(query, (rank = ranker(query)));
  return rank(doc, titleMaxPosition);
}

/**
 * tsRank of a query that is one lexeme (not a prefix), from its number of positions in the title (titleCount, at
 * most 255) and in the description (descriptionCount); no position is needed because the title's positions all come
 * before the description's in the concatenation. The 256-position cap is applied here. Exact whenever the shifted
 * description positions stay below 16383, i.e. titleMaxPosition + the description's largest position < 16383 (true of
 * any document whose title and description hold fewer than 16383 words together, stop words included); beyond, call
 * tsRank.
 */
export function tsRankSingle(titleCount: number, descriptionCount: number): number {
  if (titleCount + descriptionCount === 0) return 0;
  const nd = Math.max(0, Math.min(descriptionCount, MAX_NUM_POS - titleCount));
  return Math.fround(entryScore(titleCount, nd) / SUM_INVERSE_SQUARES);
}
