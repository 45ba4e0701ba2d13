// Impact-ordered lists: for one lexeme, every document holding it (in its title, description or
// both) in relevance order: ts_rank descending, then job_id descending. A text filter that is one
// word ("manager") then pages by walking the list and keeping the documents that pass the other
// filters, and stops as soon as the page is full, instead of scoring every match. Counting walks it
// once without scoring or merging.
//
// A word's ts_rank depends only on how often it occurs in the title and in the description
// (tsRankSingle), so a list is built in two linear passes: score each match, then lay the matches
// out by score bucket, visiting all documents in descending job_id order so that each bucket comes
// out in tie order. The lists of frequent words are kept per snapshot, least recently used first
// out, within a memory budget.

import { tsRank, tsRankSingle } from '../search/rank.js';
import type { Query } from '../search/query.js';
import type { JobsSnapshot } from './snapshot.js';

export const IN_TITLE = 1;
export const IN_DESCRIPTION = 2;

export interface RankedList {
  docs: Uint32Array;
  /** Per entry: IN_TITLE, IN_DESCRIPTION or both. */
  fields: Uint8Array;
  /** The entries of equal score: bucket b ends (exclusive) at bucketEnds[b] and scores bucketScores[b]. */
  bucketEnds: Uint32Array;
  bucketScores: Float64Array;
}

/**
 * ts_rank of one word in one document that holds it `inTitle` times in its title and `inDescription`
 * times in its description (tsRankSingle, or from the positions in the rare document too long for it).
 */
export function wordScore(s: JobsSnapshot, lexeme: string, doc: number, inTitle: number, inDescription: number): number {
  // tsRankSingle is exact while the shifted description positions stay below 16383 (src/search/rank.ts).
  if (s.title.maxPositions[doc]! + s.description.maxPositions[doc]! < 16383) return tsRankSingle(inTitle, inDescription);
  const query: Query = { kind: 'term', lexeme, prefix: false };
  return tsRank(query, { positions: (l, field) => s[field].positionsIn(l, doc), lexemesWithPrefix: () => [] }, s.title.maxPositions[doc]!);
}

/**
 * A word is common when it occurs in this many titles and descriptions together. Only common words
 * have lists: the matches of a rarer one are few enough to score one by one. Tests lower it.
 */
export const limits = {
  commonWordDocs: 20_000,
  /** false: every request takes the general path (tests compare both). */ impactOrdered: true,
};

export function isCommonWord(s: JobsSnapshot, lexeme: string): boolean {
  return s.title.occurrences(lexeme).docs.length + s.description.occurrences(lexeme).docs.length >= limits.commonWordDocs;
}
const BUDGET_BYTES = 128 * 2 ** 20;

const cache = new WeakMap<JobsSnapshot, Map<string, RankedList>>();

/** The documents holding `lexeme` in relevance order, for a common word (isCommonWord); null for any other. */
export function rankedList(s: JobsSnapshot, lexeme: string): RankedList | null {
  let lists = cache.get(s);
  if (!lists) cache.set(s, (lists = new Map<string, RankedList>()));
  const hit = lists.get(lexeme);
  if (hit) {
    lists.delete(lexeme);
    lists.set(lexeme, hit);
    return hit;
  }
  const title = s.title.occurrences(lexeme);
  const description = s.description.occurrences(lexeme);
  if (title.docs.length + description.docs.length < limits.commonWordDocs) return null;
  const list = build(s, lexeme, title, description);
  lists.set(lexeme, list);
  let bytes = 0;
  for (const l of lists.values()) bytes += l.docs.byteLength + l.fields.byteLength;
  for (const [key, l] of lists) {
    if (bytes <= BUDGET_BYTES || lists.size === 1) break;
    bytes -= l.docs.byteLength + l.fields.byteLength;
    lists.delete(key);
  }
  return list;
}

type Occurrences = { docs: Uint32Array; posStart: Uint32Array };

function build(s: JobsSnapshot, lexeme: string, title: Occurrences, description: Occurrences): RankedList {
  const n = title.docs.length + description.docs.length;
  // Pass 1: the union of both fields, each match's score and fields.
  const matches = new Uint32Array(n);
  const scores = new Float64Array(n);
  const fieldsOf = new Uint8Array(n);
  let m = 0;
  for (let i = 0, j = 0; i < title.docs.length || j < description.docs.length; m++) {
    const a = i < title.docs.length ? title.docs[i]! : Infinity;
    const b = j < description.docs.length ? description.docs[j]! : Infinity;
    const doc = Math.min(a, b);
    const inTitle = a === doc ? title.posStart[i + 1]! - title.posStart[i++]! : 0;
    const inDescription = b === doc ? description.posStart[j + 1]! - description.posStart[j++]! : 0;
    matches[m] = doc;
    fieldsOf[m] = (inTitle > 0 ? IN_TITLE : 0) | (inDescription > 0 ? IN_DESCRIPTION : 0);
    scores[m] = wordScore(s, lexeme, doc, inTitle, inDescription);
  }
  // Pass 2: buckets by descending score; all documents visited by descending job_id fill each bucket in tie order.
  const distinct = [...new Set(scores.subarray(0, m))].sort((x, y) => y - x);
  const bucketOfScore = new Map(distinct.map((score, b) => [score, b]));
  const next = new Uint32Array(distinct.length);
  const bucket = new Uint32Array(m);
  const slot = new Int32Array(s.size).fill(-1);
  for (let k = 0; k < m; k++) {
    const b = (bucket[k] = bucketOfScore.get(scores[k]!)!);
    next[b]!++;
    slot[matches[k]!] = k;
  }
  for (let b = 0, start = 0; b < distinct.length; b++) [next[b], start] = [start, start + next[b]!];
  const docs = new Uint32Array(m);
  const fields = new Uint8Array(m);
  for (let r = s.size - 1; r >= 0; r--) {
    const doc = s.docOfIdRank[r]!;
    const k = slot[doc]!;
    if (k < 0) continue;
    const at = next[bucket[k]!]!++;
    docs[at] = doc;
    fields[at] = fieldsOf[k]!;
  }
  const bucketEnds = new Uint32Array(distinct.length);
  for (let b = 0; b < distinct.length; b++) bucketEnds[b] = next[b]!;
  return { docs, fields, bucketEnds, bucketScores: Float64Array.from(distinct) };
}

/**
 * The first `k` documents of the list that hold the word in one of `inFields` and pass `marks`
 * (1: passes the structured filters).
 */
export function firstOf(list: RankedList, inFields: number, marks: Uint8Array, k: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < list.docs.length && out.length < k; i++) {
    const doc = list.docs[i]!;
    if ((list.fields[i]! & inFields) !== 0 && marks[doc] === 1) out.push(doc);
  }
  return out;
}

/** How many documents of the list hold the word in one of `inFields` and pass `marks`. */
export function countOf(list: RankedList, inFields: number, marks: Uint8Array): number {
  let count = 0;
  for (let i = 0; i < list.docs.length; i++) if ((list.fields[i]! & inFields) !== 0 && marks[list.docs[i]!] === 1) count++;
  return count;
}

/** One word's list being read: the next entry that holds the word in the fields asked for, and its score. */
class Reader {
  at = -1;
  private bucket = 0;
  constructor(
    readonly list: RankedList,
    private readonly inFields: number,
  ) {
    this.advance();
  }
  get done(): boolean {
    return this.at >= this.list.docs.length;
  }
  get doc(): number {
    return this.list.docs[this.at]!;
  }
  get score(): number {
    return this.list.bucketScores[this.bucket]!;
  }
  advance(): void {
    const { docs, fields, bucketEnds } = this.list;
    do this.at++;
    while (this.at < docs.length && (fields[this.at]! & this.inFields) === 0);
    while (this.bucket < bucketEnds.length - 1 && bucketEnds[this.bucket]! <= this.at) this.bucket++;
  }
}

/**
 * The first `k` documents holding every word of `lexemes` in one of `inFields` and passing `marks`,
 * ranked by the sum of the words' own ts_rank (wordScore, in the order of `lexemes`), ties by job_id
 * descending: the threshold algorithm (Fagin) over the words' lists. The lists are read in turn; each
 * document met is checked and scored in full; reading stops once the k-th best beats anything not yet
 * met (whose score is at most the sum of the scores where the lists stand), or a list runs out (a
 * document not yet met cannot then hold every word).
 */
export function firstOfAll(
  s: JobsSnapshot,
  lexemes: string[],
  lists: RankedList[],
  inFields: number,
  marks: Uint8Array,
  k: number,
): number[] {
  const readers = lists.map((list) => new Reader(list, inFields));
  const top: { doc: number; score: number; id: number }[] = [];
  const seen = new Set<number>();
  const beats = (a: { score: number; id: number }, b: { score: number; id: number }) =>
    a.score > b.score || (a.score === b.score && a.id > b.id);
  for (;;) {
    for (const reader of readers) {
      if (reader.done) return top.map((t) => t.doc);
      const doc = reader.doc;
      reader.advance();
      if (seen.has(doc)) continue;
      seen.add(doc);
      const score = matchScore(s, lexemes, inFields, marks, doc);
      if (score === null) continue;
      const entry = { doc, score, id: s.idRank[doc]! };
      if (top.length === k && !beats(entry, top[k - 1]!)) continue;
      let at = top.length;
      while (at > 0 && beats(entry, top[at - 1]!)) at--;
      top.splice(at, 0, entry);
      if (top.length > k) top.pop();
    }
    if (readers.some((r) => r.done)) return top.map((t) => t.doc);
    if (top.length === k) {
      let threshold = 0;
      let id = Infinity;
      for (const reader of readers) {
        threshold += reader.score;
        id = Math.min(id, s.idRank[reader.doc]!);
      }
      const last = top[k - 1]!;
      if (last.score > threshold || (last.score === threshold && last.id >= id)) return top.map((t) => t.doc);
    }
  }
}

/** A document's score for firstOfAll, or null when it lacks a word in the fields asked for or fails the marks. */
function matchScore(s: JobsSnapshot, lexemes: string[], inFields: number, marks: Uint8Array, doc: number): number | null {
  if (marks[doc] !== 1) return null;
  let score = 0;
  for (const lexeme of lexemes) {
    const inTitle = s.title.positionsIn(lexeme, doc)?.length ?? 0;
    const inDescription = s.description.positionsIn(lexeme, doc)?.length ?? 0;
    if ((((inTitle > 0 ? IN_TITLE : 0) | (inDescription > 0 ? IN_DESCRIPTION : 0)) & inFields) === 0) return null;
    score += wordScore(s, lexeme, doc, inTitle, inDescription);
  }
  return score;
}
