// The inverted index of one text field (job titles, or descriptions) over the documents of a
// snapshot: for each lexeme, the documents holding it and, per document, its positions. Queries
// (src/search/query.ts) evaluate to sorted lists of document numbers with PostgreSQL's `@@`
// semantics; matches() there is the reference the tests hold this evaluator to.
//
// Layout (typed arrays, no per-document objects):
//   terms[t]                      the lexemes, sorted, so a prefix is a range
//   docs[start[t] .. start[t+1])  the documents of term t, ascending
//   positions[posStart[k] .. posStart[k+1])   the positions of the k-th (term, document) pair

import { Growable, uint32 } from './growable.js';
import { intersect, subtract, unionAll, type DocList } from './doc-lists.js';
import type { Query } from './query.js';

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
    return (
      this.start.byteLength + this.docs.byteLength + this.posStart.byteLength + this.positions.byteLength + this.maxPositions.byteLength
    );
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
    return {
      docs: this.docs.subarray(this.start[t], this.start[t + 1]),
      posStart: this.posStart.subarray(this.start[t], this.start[t + 1]! + 1),
    };
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
        return query.prefix
          ? unionAll(this.prefixTerms(query.lexeme).map((t) => this.termList(t)))
          : this.termList(this.termIds.get(query.lexeme));
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
        return {
          bound: Math.min(this.documents, ...yes.map((t) => t.bound)),
          has: (doc) => yes.every((t) => t.has(doc)) && !no.some((t) => t.has(doc)),
        };
      }
      case 'or': {
        const args = query.args.map((a) => this.tester(a));
        if (args.includes(null)) return null;
        const any = args as DocTester[];
        return {
          bound: Math.min(
            this.documents,
            any.reduce((sum, t) => sum + t.bound, 0),
          ),
          has: (doc) => any.some((t) => t.has(doc)),
        };
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
    const termSets = items.map((item) =>
      item.prefix ? this.prefixTerms(item.lexeme) : [this.termIds.get(item.lexeme)].filter((t) => t !== undefined),
    );
    let candidates = unionAll(termSets[0]!.map((t) => this.termList(t)));
    for (const set of termSets.slice(1)) candidates = intersect(candidates, unionAll(set.map((t) => this.termList(t))));
    if (items.length === 1) return candidates;
    if (termSets.every((set) => set.length === 1))
      return this.plainPhrase(
        candidates,
        termSets.map((set) => set[0]!),
        items.map((item) => item.offset - items[0]!.offset),
      );
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
