// The inverted index of one text field (job titles, or descriptions) over the documents of a
// snapshot: for each lexeme, the documents holding it and, per document, its positions. Queries
// (src/search/query.ts) evaluate to sorted lists of document numbers with PostgreSQL's `@@`
// semantics; matches() there is the reference the tests hold this evaluator to.
//
// Layout (typed arrays, no per-document objects):
//   terms[t]                      the lexemes, sorted, so a prefix is a range
//   docs[start[t] .. start[t+1])  the documents of term t, ascending
//   positions[posStart[k] .. posStart[k+1])   the positions of the k-th (term, document) pair

import { dictionaryOutputs, firstChunkOutputs, laterChunkOutputs, MAX_POSITION, MAX_POSITIONS_PER_LEXEME, textChunks } from './analyze.js';
import { intersect, subtract, unionAll, type DocList } from './doc-lists.js';
import type { Query } from './query.js';

/** A typed array that doubles when full. */
class Growable<T extends Uint32Array | Uint16Array = Uint32Array> {
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

const uint32 = (length: number) => new Uint32Array(length);
/** Positions fit 16 bits (at most MAX_POSITION): half the builder's largest arrays. */
const uint16 = (length: number) => new Uint16Array(length);

function grown<T extends Int32Array | Uint16Array>(small: T, bigger: T): T {
  bigger.set(small);
  return bigger;
}

/** A builder's cache of later chunks' term ids (src/search/analyze.ts): cleared when it reaches this size. */
const CHUNK_IDS_LIMIT = 500_000;
/** A stop word among a chunk's term ids: it takes a position and adds no lexeme. */
const STOP = -1;

/**
 * Builds an index document by document (documents numbered 0, 1, 2, ... in the order added), with the
 * lexemes and positions of analyze() (a test holds it to that). It reads a text chunk by chunk and keeps
 * each later chunk as the term ids it gives, so a recurring chunk costs one lookup, and it applies
 * to_tsvector's per-lexeme limits with per-term arrays rather than a map per document.
 */
export class IndexBuilder {
  private readonly ids = new Map<string, number>();
  private readonly chunkIds = new Map<string, Int32Array>();
  private readonly termDocs: Growable[] = [];
  private readonly termPos: Growable<Uint16Array>[] = [];
  /** Per term, where each of its (term, document) pairs starts in its positions. */
  private readonly termPairStart: Growable[] = [];
  /** Per term, the last document it was seen in, how often it was kept there and its last position there. */
  private lastDoc = new Int32Array(1024);
  private countInDoc = new Uint16Array(1024);
  private lastPosition = new Uint16Array(1024);
  /** Per document, its largest position (0 without lexemes): ts_rank shifts the next field by it. */
  private readonly maxPositions = new Growable(uint16, 1024);
  private documents = 0;
  /** The document being added: its number, the positions taken so far, its largest kept position. */
  private doc = 0;
  private position = 0;
  private max = 0;

  add(text: string | null): void {
    this.doc = this.documents++;
    this.maxPositions.push(0);
    if (!text) return;
    this.position = 0;
    this.max = 0;
    const chunks = textChunks(text);
    if (chunks === null) {
      for (const lexeme of dictionaryOutputs(text)) this.take(lexeme === null ? STOP : this.termId(lexeme));
    } else {
      for (let i = 0; i < chunks.length; i++) {
        const chunk = chunks[i]!;
        if (chunk === '') continue;
        const ids = i === 0 ? this.idsOf(firstChunkOutputs(chunk)) : this.laterChunkIds(chunk);
        for (let k = 0; k < ids.length; k++) this.take(ids[k]!);
      }
    }
    this.maxPositions.array[this.doc] = this.max;
  }

  /** The next position-taking token of the document: a term, or a stop word. */
  private take(id: number): void {
    this.position += 1;
    if (id === STOP) return;
    const position = Math.min(this.position, MAX_POSITION);
    const positions = this.termPos[id]!;
    if (this.lastDoc[id] !== this.doc) {
      this.lastDoc[id] = this.doc;
      this.countInDoc[id] = 1;
      this.termDocs[id]!.push(this.doc);
      this.termPairStart[id]!.push(positions.length);
    } else {
      // to_tsvector keeps at most 255 positions of a lexeme, and one of each position (past the last one, all are it).
      const last = this.lastPosition[id]!;
      if (this.countInDoc[id]! >= MAX_POSITIONS_PER_LEXEME || last === MAX_POSITION || last === position) return;
      this.countInDoc[id]! += 1;
    }
    this.lastPosition[id] = position;
    positions.push(position);
    if (position > this.max) this.max = position;
  }

  private laterChunkIds(chunk: string): Int32Array {
    let ids = this.chunkIds.get(chunk);
    if (ids === undefined) {
      ids = this.idsOf(laterChunkOutputs(chunk));
      if (this.chunkIds.size >= CHUNK_IDS_LIMIT) this.chunkIds.clear();
      this.chunkIds.set(chunk, ids);
    }
    return ids;
  }

  private idsOf(outputs: (string | null)[]): Int32Array {
    return Int32Array.from(outputs, (lexeme) => (lexeme === null ? STOP : this.termId(lexeme)));
  }

  private termId(lexeme: string): number {
    let id = this.ids.get(lexeme);
    if (id === undefined) {
      id = this.ids.size;
      this.ids.set(lexeme, id);
      this.termDocs.push(new Growable(uint32));
      this.termPos.push(new Growable(uint16));
      this.termPairStart.push(new Growable(uint32));
      if (id >= this.lastDoc.length) {
        this.lastDoc = grown(this.lastDoc, new Int32Array(this.lastDoc.length * 2));
        this.countInDoc = grown(this.countInDoc, new Uint16Array(this.countInDoc.length * 2));
        this.lastPosition = grown(this.lastPosition, new Uint16Array(this.lastPosition.length * 2));
      }
      this.lastDoc[id] = -1;
    }
    return id;
  }

  /** The index of the documents added (once: the builder is spent after). */
  build(): InvertedIndex {
    const terms = [...this.ids.keys()].sort();
    const start = new Uint32Array(terms.length + 1);
    let pairs = 0;
    let positionCount = 0;
    for (const [t, term] of terms.entries()) {
      const id = this.ids.get(term)!;
      start[t] = pairs;
      pairs += this.termDocs[id]!.length;
      positionCount += this.termPos[id]!.length;
    }
    start[terms.length] = pairs;
    const docs = new Uint32Array(pairs);
    const posStart = new Uint32Array(pairs + 1);
    const positions = new Uint16Array(positionCount);
    let k = 0;
    let p = 0;
    for (const term of terms) {
      const id = this.ids.get(term)!;
      const termDocs = this.termDocs[id]!;
      const termPos = this.termPos[id]!;
      const pairStart = this.termPairStart[id]!.array;
      docs.set(termDocs.array.subarray(0, termDocs.length), k);
      positions.set(termPos.array.subarray(0, termPos.length), p);
      for (let i = 0; i < termDocs.length; i++) posStart[k + i] = p + pairStart[i]!;
      k += termDocs.length;
      p += termPos.length;
      // Copied: let it go, so that the builder's arrays and the index's are not all held at once.
      termDocs.release();
      termPos.release();
      this.termPairStart[id]!.release();
    }
    posStart[pairs] = p;
    const maxPositions = this.maxPositions.array.slice(0, this.documents);
    return new InvertedIndex(this.documents, terms, start, docs, posStart, positions, maxPositions);
  }
}

/**
 * The index of the documents of `a` then those of `b` (numbered after a's): what one builder fed both
 * ranges would have built. Index builds over consecutive ranges of documents run in parallel and are
 * joined by it.
 */
export function concatParts(a: IndexParts, b: IndexParts): IndexParts {
  const terms: string[] = [];
  // Both term lists are sorted (by UTF-16 code units, as Array.prototype.sort and `<` compare).
  for (let i = 0, j = 0; i < a.terms.length || j < b.terms.length; ) {
    if (j === b.terms.length || (i < a.terms.length && a.terms[i]! < b.terms[j]!)) terms.push(a.terms[i++]!);
    else if (i === a.terms.length || b.terms[j]! < a.terms[i]!) terms.push(b.terms[j++]!);
    else {
      terms.push(a.terms[i++]!);
      j++;
    }
  }
  const start = new Uint32Array(terms.length + 1);
  const docs = new Uint32Array(a.docs.length + b.docs.length);
  const posStart = new Uint32Array(docs.length + 1);
  const positions = new Uint16Array(a.positions.length + b.positions.length);
  let k = 0;
  let p = 0;
  // Appends the pairs of term `t` of `part` (its documents shifted by `shift`).
  const append = (part: IndexParts, t: number, shift: number) => {
    const from = part.start[t]!;
    const to = part.start[t + 1]!;
    const firstPos = part.posStart[from]!;
    const lastPos = part.posStart[to]!;
    for (let x = from; x < to; x++) {
      docs[k] = part.docs[x]! + shift;
      posStart[k++] = p + part.posStart[x]! - firstPos;
    }
    positions.set(part.positions.subarray(firstPos, lastPos), p);
    p += lastPos - firstPos;
  };
  for (let t = 0, i = 0, j = 0; t < terms.length; t++) {
    start[t] = k;
    if (a.terms[i] === terms[t]) append(a, i++, 0);
    if (b.terms[j] === terms[t]) append(b, j++, a.documents);
  }
  start[terms.length] = k;
  posStart[k] = p;
  const maxPositions = new Uint16Array(a.documents + b.documents);
  maxPositions.set(a.maxPositions, 0);
  maxPositions.set(b.maxPositions, a.documents);
  return { documents: a.documents + b.documents, terms, start, docs, posStart, positions, maxPositions };
}

/** A query as a test of single documents (InvertedIndex.tester). */
export interface DocTester {
  /** At least as many as the documents that match. */
  bound: number;
  has: (doc: number) => boolean;
}

/** A prefix of more lexemes than this is evaluated whole rather than tested document by document. */
const MAX_TESTED_PREFIX_TERMS = 8;

/** An index as plain data: what a worker thread hands over (the arrays' buffers are transferred, not copied). */
export interface IndexParts {
  documents: number;
  terms: string[];
  start: Uint32Array;
  docs: Uint32Array;
  posStart: Uint32Array;
  positions: Uint16Array;
  maxPositions: Uint16Array;
}

export class InvertedIndex {
  private readonly termIds: Map<string, number>;

  static fromParts(p: IndexParts): InvertedIndex {
    return new InvertedIndex(p.documents, p.terms, p.start, p.docs, p.posStart, p.positions, p.maxPositions);
  }

  toParts(): IndexParts {
    const { documents, terms, start, docs, posStart, positions, maxPositions } = this;
    return { documents, terms, start, docs, posStart, positions, maxPositions };
  }

  constructor(
    readonly documents: number,
    readonly terms: string[],
    readonly start: Uint32Array,
    readonly docs: Uint32Array,
    readonly posStart: Uint32Array,
    readonly positions: Uint16Array,
    /** Per document, its largest position (0 when it has no lexeme). */
    readonly maxPositions: Uint16Array,
  ) {
    this.termIds = new Map(terms.map((term, t) => [term, t]));
  }

  /** Bytes held by the arrays (the lexeme strings aside). */
  get bytes(): number {
    return this.start.byteLength + this.docs.byteLength + this.posStart.byteLength + this.positions.byteLength + this.maxPositions.byteLength;
  }

  /** How often `lexeme` occurs in each of `matches` (ascending), into `out` (by match index). */
  countsIn(lexeme: string, matches: DocList, out: Uint16Array): void {
    const t = this.termIds.get(lexeme);
    if (t === undefined) return;
    let i = 0;
    for (let k = this.start[t]!; k < this.start[t + 1]! && i < matches.length; k++) {
      const doc = this.docs[k]!;
      while (i < matches.length && matches[i]! < doc) i++;
      if (i < matches.length && matches[i] === doc) out[i] = this.posStart[k + 1]! - this.posStart[k]!;
    }
  }

  /**
   * The documents holding `lexeme` (ascending) and where each one's positions start: the k-th holds it
   * posStart[k + 1] - posStart[k] times.
   */
  occurrences(lexeme: string): { docs: Uint32Array; posStart: Uint32Array } {
    const t = this.termIds.get(lexeme);
    if (t === undefined) return { docs: new Uint32Array(0), posStart: new Uint32Array(1) };
    return { docs: this.docs.subarray(this.start[t], this.start[t + 1]), posStart: this.posStart.subarray(this.start[t], this.start[t + 1]! + 1) };
  }

  /** The positions of `lexeme` in `doc`, ascending, or undefined when it does not occur there. */
  positionsIn(lexeme: string, doc: number): Uint16Array | undefined {
    const t = this.termIds.get(lexeme);
    return t === undefined ? undefined : this.positionsOf(t, doc);
  }

  /** The lexemes that start with `prefix`, in byte order. */
  lexemesWithPrefix(prefix: string): string[] {
    return this.prefixTerms(prefix).map((t) => this.terms[t]!);
  }

  /** The documents matching a query, ascending. */
  evaluate(query: Query): DocList {
    switch (query.kind) {
      case 'term':
        return query.prefix ? unionAll(this.prefixTerms(query.lexeme).map((t) => this.termList(t))) : this.termList(this.termIds.get(query.lexeme));
      case 'phrase':
        return this.phrase(query.items);
      case 'and': {
        const positive = query.args.filter((a) => a.kind !== 'not');
        const negative = query.args.filter((a): a is Extract<Query, { kind: 'not' }> => a.kind === 'not');
        let result = positive.length > 0 ? this.evaluate(positive[0]!) : this.all();
        for (const arg of positive.slice(1)) result = intersect(result, this.evaluate(arg));
        for (const arg of negative) result = subtract(result, this.evaluate(arg.arg));
        return result;
      }
      case 'or':
        return unionAll(query.args.map((a) => this.evaluate(a)));
      case 'not':
        return subtract(this.all(), this.evaluate(query.arg));
    }
  }

  /**
   * The query as a test of one document at a time (binary searches in its terms' lists), with an upper
   * bound of how many documents match; null for a prefix of many lexemes, where evaluating the whole
   * query costs less. Agrees with evaluate(): `has(d)` is true exactly for the documents it lists.
   */
  tester(query: Query): DocTester | null {
    switch (query.kind) {
      case 'term': {
        const terms = query.prefix ? this.prefixTerms(query.lexeme) : [this.termIds.get(query.lexeme)].filter((t) => t !== undefined);
        if (terms.length > MAX_TESTED_PREFIX_TERMS) return null;
        const bound = terms.reduce((sum, t) => sum + this.start[t + 1]! - this.start[t]!, 0);
        return { bound, has: (doc) => terms.some((t) => this.pairOf(t, doc) >= 0) };
      }
      case 'phrase': {
        if (query.items.length === 0) return { bound: 0, has: () => false };
        if (query.items.some((item) => item.prefix)) return null;
        const terms = query.items.map((item) => this.termIds.get(item.lexeme));
        if (terms.some((t) => t === undefined)) return { bound: 0, has: () => false };
        const ts = terms as number[];
        const offsets = query.items.map((item) => item.offset - query.items[0]!.offset);
        const from = new Uint32Array(ts.length);
        const to = new Uint32Array(ts.length);
        const bound = Math.min(...ts.map((t) => this.start[t + 1]! - this.start[t]!));
        return {
          bound,
          has: (doc) => {
            for (let i = 0; i < ts.length; i++) {
              const k = this.pairOf(ts[i]!, doc);
              if (k < 0) return false;
              from[i] = this.posStart[k]!;
              to[i] = this.posStart[k + 1]!;
            }
            return ts.length === 1 || this.inSequence(from, to, offsets);
          },
        };
      }
      case 'and': {
        const positive = query.args.filter((a) => a.kind !== 'not').map((a) => this.tester(a));
        const negative = query.args.flatMap((a) => (a.kind === 'not' ? [this.tester(a.arg)] : []));
        if (positive.includes(null) || negative.includes(null)) return null;
        const yes = positive as DocTester[];
        const no = negative as DocTester[];
        return { bound: Math.min(this.documents, ...yes.map((t) => t.bound)), has: (doc) => yes.every((t) => t.has(doc)) && !no.some((t) => t.has(doc)) };
      }
      case 'or': {
        const args = query.args.map((a) => this.tester(a));
        if (args.includes(null)) return null;
        const any = args as DocTester[];
        return { bound: Math.min(this.documents, any.reduce((sum, t) => sum + t.bound, 0)), has: (doc) => any.some((t) => t.has(doc)) };
      }
      case 'not': {
        const arg = this.tester(query.arg);
        return arg && { bound: this.documents, has: (doc) => !arg.has(doc) };
      }
    }
  }

  /** How often each of `lexemes` occurs in each of `matches` (ascending), summed as log2(1 + tf) * weight into `scores`. */
  addScores(lexemes: Iterable<string>, matches: DocList, scores: Float64Array, weight: number): void {
    for (const lexeme of lexemes) {
      const t = this.termIds.get(lexeme);
      if (t === undefined) continue;
      let i = 0;
      for (let k = this.start[t]!; k < this.start[t + 1]! && i < matches.length; k++) {
        const doc = this.docs[k]!;
        while (i < matches.length && matches[i]! < doc) i++;
        if (i < matches.length && matches[i] === doc) scores[i]! += weight * Math.log2(1 + this.posStart[k + 1]! - this.posStart[k]!);
      }
    }
  }

  private all(): DocList {
    const list = new Uint32Array(this.documents);
    for (let i = 0; i < list.length; i++) list[i] = i;
    return list;
  }

  private termList(t: number | undefined): DocList {
    return t === undefined ? new Uint32Array(0) : this.docs.subarray(this.start[t], this.start[t + 1]);
  }

  /** Term numbers whose lexeme starts with `prefix` (a range, since terms are sorted). */
  private prefixTerms(prefix: string): number[] {
    let lo = 0;
    let hi = this.terms.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.terms[mid]! < prefix) lo = mid + 1;
      else hi = mid;
    }
    const found: number[] = [];
    for (let t = lo; t < this.terms.length && this.terms[t]!.startsWith(prefix); t++) found.push(t);
    return found;
  }

  /** The positions of term t in `doc`, or undefined when it does not occur there. */
  private positionsOf(t: number, doc: number): Uint16Array | undefined {
    const k = this.pairOf(t, doc);
    return k < 0 ? undefined : this.positions.subarray(this.posStart[k], this.posStart[k + 1]);
  }

  /** The number of the (term t, doc) pair, or -1 when t does not occur in doc. */
  private pairOf(t: number, doc: number): number {
    let lo = this.start[t]!;
    let hi = this.start[t + 1]!;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.docs[mid]! < doc) lo = mid + 1;
      else hi = mid;
    }
    return lo < this.start[t + 1]! && this.docs[lo] === doc ? lo : -1;
  }

  /**
   * The phrase of plain terms (`terms[i]` at `offsets[i]` from the first) among `candidates` (ascending
   * documents holding every term): each term's list is walked forward once.
   */
  private plainPhrase(candidates: DocList, terms: number[], offsets: number[]): DocList {
    const out = new Growable(uint32, Math.max(4, candidates.length));
    const at = terms.map((t) => this.start[t]!);
    const from = new Uint32Array(terms.length);
    const to = new Uint32Array(terms.length);
    for (const doc of candidates) {
      for (let i = 0; i < terms.length; i++) {
        let k = at[i]!;
        while (this.docs[k]! < doc) k++;
        at[i] = k;
        from[i] = this.posStart[k]!;
        to[i] = this.posStart[k + 1]!;
      }
      if (this.inSequence(from, to, offsets)) out.push(doc);
    }
    return out.array.slice(0, out.length);
  }

  /** Whether some position p in positions[from[0], to[0]) has p + offsets[i] in positions[from[i], to[i]) for every i. */
  private inSequence(from: Uint32Array, to: Uint32Array, offsets: number[]): boolean {
    // Each position of the first term, and the positions the others must then have (all ascending).
    const cursor = Uint32Array.from(from);
    for (let p = from[0]!; p < to[0]!; p++) {
      let found = true;
      for (let i = 1; i < from.length; i++) {
        const want = this.positions[p]! + offsets[i]!;
        let c = cursor[i]!;
        while (c < to[i]! && this.positions[c]! < want) c++;
        cursor[i] = c;
        if (c >= to[i]! || this.positions[c] !== want) {
          found = false;
          break;
        }
      }
      if (found) return true;
    }
    return false;
  }

  /** Documents where the items occur at their offsets from one another (PostgreSQL's <N> chain). */
  private phrase(items: Extract<Query, { kind: 'phrase' }>['items']): DocList {
    if (items.length === 0) return new Uint32Array(0);
    const termSets = items.map((item) => (item.prefix ? this.prefixTerms(item.lexeme) : [this.termIds.get(item.lexeme)].filter((t) => t !== undefined)));
    let candidates = unionAll(termSets[0]!.map((t) => this.termList(t)));
    for (const set of termSets.slice(1)) candidates = intersect(candidates, unionAll(set.map((t) => this.termList(t))));
    if (items.length === 1) return candidates;
    if (termSets.every((set) => set.length === 1)) return this.plainPhrase(candidates, termSets.map((set) => set[0]!), items.map((item) => item.offset - items[0]!.offset));
    const out = new Growable(uint32, Math.max(4, candidates.length));
    for (const doc of candidates) {
      const sets = termSets.map((terms) => {
        const found = new Set<number>();
        for (const t of terms) for (const p of this.positionsOf(t, doc) ?? []) found.add(p);
        return found;
      });
      const base = items[0]!.offset;
      let ok = false;
      for (const p of sets[0]!) {
        if (items.every((item, i) => sets[i]!.has(p + item.offset - base))) {
          ok = true;
          break;
        }
      }
      if (ok) out.push(doc);
    }
    return out.array.slice(0, out.length);
  }
}
