// Relevance (DESIGN.md 4): PostgreSQL's ts_rank of each text match, and the first k matches in
// that order, ties by job_id descending.

import type { DocList } from '../search/doc-lists.js';
import type { Query } from '../search/query.js';
import { andLexemes, concatPositions, MAX_POSITIONS, rankAnd, ranker, tsRank, tsRankSingle, type RankSource } from '../search/rank.js';
import { isCommonWord, wordScore } from './ranked-lists.js';
import type { JobsSnapshot } from './snapshot.js';

/** The documents matching a request's text filters, and what they are ranked by. */
export interface TextMatch {
  docs: DocList;
  /** What relevance ranks by: the query of q, title and description (all of them, AND-ed). */
  ranking: Query;
  /** The positive lexemes of every text filter sent (the fallback scorer's). */
  lexemes: Set<string>;
}

const TITLE_WEIGHT = 1.0;
const DESCRIPTION_WEIGHT = 0.1;

/**
 * Each match's relevance: PostgreSQL's ts_rank('{0.1, 0, 0, 1.0}', title_A || description_D, query),
 * float4-exact (src/search/rank.ts). One word needs only its counts in both fields. An AND or a phrase
 * of plain words needs their positions, read document by document as cursors walk each word's lists
 * (about 1 µs a document); when every one of its words is common (src/jobs/ranked-lists.ts: in 20,000
 * titles and descriptions or more) such a query is ranked by the sum of each word's own ts_rank
 * instead (counts only), an order that agrees with ts_rank on which field matched and how often, but
 * not on how close the words are. Any other query (prefixes, OR) is ranked exactly through the
 * generic ranker up to EXACT_RANK_LIMIT matches and by term counts beyond.
 */
function relevance(s: JobsSnapshot, docs: DocList, text: TextMatch): Float64Array {
  const scores = new Float64Array(docs.length);
  const query = text.ranking;
  const words = andLexemes(query);
  if (query.kind === 'term' && !query.prefix) {
    const inTitle = new Uint16Array(docs.length);
    const inDescription = new Uint16Array(docs.length);
    s.title.countsIn(query.lexeme, docs, inTitle);
    s.description.countsIn(query.lexeme, docs, inDescription);
    for (let i = 0; i < docs.length; i++) {
      const doc = docs[i]!;
      // tsRankSingle is exact while the shifted description positions stay below 16383.
      scores[i] =
        s.title.maxPositions[doc]! + s.description.maxPositions[doc]! < 16383
          ? tsRankSingle(inTitle[i]!, inDescription[i]!)
          : tsRank(query, source(s, doc), s.title.maxPositions[doc]!);
    }
  } else if (words) {
    wordsRelevance(s, docs, words, !words.every((w) => isCommonWord(s, w)), scores);
  } else if (docs.length <= EXACT_RANK_LIMIT) {
    const rankOf = ranker(query);
    for (let i = 0; i < docs.length; i++) scores[i] = rankOf(source(s, docs[i]!), s.title.maxPositions[docs[i]!]!);
  } else {
    s.title.addScores(text.lexemes, docs, scores, TITLE_WEIGHT);
    s.description.addScores(text.lexemes, docs, scores, DESCRIPTION_WEIGHT);
  }
  return scores;
}

const EXACT_RANK_LIMIT = 20_000;

/** A walk through one word's list of one field, forward only, for documents asked in ascending order. */
class Cursor {
  private at = 0;
  constructor(
    readonly docs: Uint32Array,
    readonly posStart: Uint32Array,
  ) {}
  /** Where `doc`'s positions are in the field's positions array, or -1 when the word is not in it. */
  seek(doc: number): number {
    const docs = this.docs;
    let lo = this.at;
    let step = 1;
    while (lo + step < docs.length && docs[lo + step]! < doc) step *= 2;
    let hi = Math.min(lo + step, docs.length);
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (docs[mid]! < doc) lo = mid + 1;
      else hi = mid;
    }
    this.at = lo;
    return lo < docs.length && docs[lo] === doc ? lo : -1;
  }
}

/**
 * Relevance of an AND or phrase of plain words (andLexemes): exact calc_rank_and from the words' positions, or,
 * with exact false, the sum of each word's single-word ts_rank.
 */
function wordsRelevance(s: JobsSnapshot, docs: DocList, words: string[], exact: boolean, scores: Float64Array): void {
  const title = words.map((w) => s.title.occurrences(w));
  const description = words.map((w) => s.description.occurrences(w));
  const titleCursors = title.map((o) => new Cursor(o.docs, o.posStart));
  const descriptionCursors = description.map((o) => new Cursor(o.docs, o.posStart));
  const positions = words.map(() => new Int32Array(MAX_POSITIONS));
  const lengths = new Int32Array(words.length);
  const titleCounts = new Int32Array(words.length);
  const titlePositions = s.title.positions;
  const descriptionPositions = s.description.positions;
  for (let i = 0; i < docs.length; i++) {
    const doc = docs[i]!;
    const shift = s.title.maxPositions[doc]!;
    let score = 0;
    for (let w = 0; w < words.length; w++) {
      const t = titleCursors[w]!.seek(doc);
      const d = descriptionCursors[w]!.seek(doc);
      const tFrom = t < 0 ? 0 : title[w]!.posStart[t]!;
      const tTo = t < 0 ? 0 : title[w]!.posStart[t + 1]!;
      const dFrom = d < 0 ? 0 : description[w]!.posStart[d]!;
      const dTo = d < 0 ? 0 : description[w]!.posStart[d + 1]!;
      if (exact) {
        lengths[w] = concatPositions(positions[w]!, titlePositions, tFrom, tTo, descriptionPositions, dFrom, dTo, shift);
        titleCounts[w] = tTo - tFrom;
      } else {
        score += wordScore(s, words[w]!, doc, tTo - tFrom, dTo - dFrom);
      }
    }
    scores[i] = exact ? rankAnd(positions, lengths, titleCounts) : score;
  }
}

/** One document of the snapshot as ts_rank reads it. */
function source(s: JobsSnapshot, doc: number): RankSource {
  return {
    positions: (lexeme, field) => s[field].positionsIn(lexeme, doc),
    lexemesWithPrefix: (prefix, field) =>
      s[field].lexemesWithPrefix(prefix).filter((lexeme) => s[field].positionsIn(lexeme, doc) !== undefined),
  };
}

/**
 * The first `k` matches by relevance, ties by job_id descending. Only the first k are ordered: a
 * bounded heap keeps them while the scores stream by.
 */
export function rank(s: JobsSnapshot, docs: DocList, text: TextMatch, k: number): number[] {
  const scores = relevance(s, docs, text);
  const ids = new Uint32Array(docs.length);
  for (let i = 0; i < docs.length; i++) ids[i] = s.idRank[docs[i]!]!;
  const before = (a: number, b: number) => scores[a]! > scores[b]! || (scores[a] === scores[b] && ids[a]! > ids[b]!);
  if (docs.length <= k * 4) {
    const order = Array.from(docs.keys()).sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
    return order.slice(0, k).map((i) => docs[i]!);
  }
  // A min-heap (by ranking: its root is the last of the best k so far).
  const heap: number[] = [];
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let last = i;
      if (l < heap.length && before(heap[last]!, heap[l]!)) last = l;
      if (r < heap.length && before(heap[last]!, heap[r]!)) last = r;
      if (last === i) return;
      [heap[i], heap[last]] = [heap[last]!, heap[i]!];
      i = last;
    }
  };
  const up = (i: number) => {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(heap[parent]!, heap[i]!)) return;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  };
  for (let i = 0; i < docs.length; i++) {
    if (heap.length < k) {
      heap.push(i);
      up(heap.length - 1);
    } else if (before(i, heap[0]!)) {
      heap[0] = i;
      down(0);
    }
  }
  return heap.sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0)).map((i) => docs[i]!);
}
