// Building the inverted index of one text field (src/search/inverted-index.ts): document by document,
// with the lexemes and positions of to_tsvector (analyze.ts), and joining builds over consecutive ranges
// of documents made in parallel.

import { dictionaryOutputs, laterChunkOutputs, MAX_POSITION, MAX_POSITIONS_PER_LEXEME, textChunks } from './analyze.js';
import { Growable, uint16, uint32 } from './growable.js';
import { InvertedIndex, type IndexParts } from './inverted-index.js';

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
        const ids = i === 0 ? this.idsOf(dictionaryOutputs(chunk)) : this.laterChunkIds(chunk);
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
  for (let i = 0, j = 0; i < a.terms.length || j < b.terms.length;) {
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
