// Passages of the guides for API users (src/shared/guides.ts) and of the OpenAPI contract's descriptions,
// ranked by BM25 for the MCP search_docs tool. The internals of docs/ (architecture, operations, decision
// records...) are not indexed: an agent calling the API has no use for them.

import { readFile } from 'node:fs/promises';
import { load } from 'js-yaml';
import { lexemes, tsvector } from '../search/analyze.js';
import { GUIDES } from '../shared/guides.js';

export interface Passage {
  /** Where it comes from, relative to the project root: a guide such as 'docs/usage-and-limits.md', or 'openapi.yaml'. */
  source: string;
  /**
   * A path of headings an agent can read as a title, e.g. 'Usage and limits › Monthly requests', or for
   * OpenAPI 'GET /v1/jobs › parameter q', 'schema Job › property currentness'.
   */
  title: string;
  /** The passage text (plain markdown/prose), at most about 1,500 characters. */
  text: string;
}

export interface DocHit extends Passage {
  score: number;
}

/** BM25 constants as Lucene and Elasticsearch default them. */
const K1 = 1.2;
const B = 0.75;
/** A word in a title says more about a passage than the same word in its body. */
const TITLE_WEIGHT = 2;
/**
 * A guide's passage outweighs a contract passage that matches as well: the guides are written to answer a
 * question, while the contract's descriptions are short notes on one field, which BM25's length
 * normalisation favours.
 */
const GUIDE_BOOST = 1.5;
/** A word the query gains from SYNONYMS counts for this much of a word the agent wrote. */
const SYNONYM_WEIGHT = 0.5;
/**
 * Groups of phrases that name the same thing, in the words an agent asks with and the words the docs use.
 * A query holding every word of one phrase of a group also looks for the words of the group's other phrases.
 */
const SYNONYMS: readonly (readonly string[])[] = [
  ['429', 'too many requests', 'rate_limited', 'data_limit_exceeded'],
  ['sync', 'change feed', 'keep a copy'],
  ['export', 'bulk'],
  ['overage', 'billing'],
  ['filter', 'parameter'],
];
const MAX_CHARS = 1500;
const SPEC_FILE = 'openapi.yaml';
const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** Coarsest first, so an oversized passage is cut between paragraphs, then lines, then words. */
const CUTS: { split: RegExp; join: string }[] = [
  { split: /\n[ \t]*\n/, join: '\n\n' },
  { split: /\n/, join: '\n' },
  { split: / /, join: ' ' },
];

/** Text cut into pieces of at most MAX_CHARS, packing as many whole parts into each piece as fit. */
function cutText(text: string, level = 0): string[] {
  if (text.length <= MAX_CHARS) return [text];
  const cut = CUTS[level];
  if (!cut) return Array.from({ length: Math.ceil(text.length / MAX_CHARS) }, (_, i) => text.slice(i * MAX_CHARS, (i + 1) * MAX_CHARS));
  const pieces: string[] = [];
  let current = '';
  for (const part of text.split(cut.split).flatMap((p) => cutText(p, level + 1))) {
    if (current !== '' && current.length + cut.join.length + part.length > MAX_CHARS) {
      pieces.push(current);
      current = part;
    } else current = current === '' ? part : current + cut.join + part;
  }
  if (current !== '') pieces.push(current);
  return pieces.map((p) => p.trim()).filter((p) => p !== '');
}

function passages(source: string, title: string, text: string | undefined): Passage[] {
  const trimmed = text?.trim() ?? '';
  return trimmed === '' ? [] : cutText(trimmed).map((piece) => ({ source, title, text: piece }));
}

// Markdown -----------------------------------------------------------------------------------------

const HEADING = /^(#{1,4})\s+(.*?)\s*#*\s*$/;
const FENCE = /^\s{0,3}(```|~~~)/;

/** A heading as an agent reads it: without code ticks, emphasis or link targets. */
function plainHeading(text: string): string {
  return text.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/`|\*\*/g, '');
}

/** One passage (or several, if long) per section; a "# comment" inside a code fence is not a heading. */
function markdownPassages(source: string, markdown: string): Passage[] {
  const out: Passage[] = [];
  const headings: { level: number; text: string }[] = [];
  let body: string[] = [];
  let fence: string | null = null;
  const flush = () => {
    const title = headings.length === 0 ? source : headings.map((h) => h.text).join(' › ');
    out.push(...passages(source, title, body.join('\n')));
    body = [];
  };
  for (const line of markdown.split(/\r?\n/)) {
    const marker = FENCE.exec(line)?.[1];
    if (marker) fence = fence === null ? marker : fence === marker ? null : fence;
    const heading = fence === null && !marker ? HEADING.exec(line) : null;
    if (!heading) {
      body.push(line);
      continue;
    }
    flush();
    const level = heading[1]!.length;
    while (headings.length > 0 && headings[headings.length - 1]!.level >= level) headings.pop();
    headings.push({ level, text: plainHeading(heading[2]!) });
  }
  flush();
  return out;
}

// OpenAPI ------------------------------------------------------------------------------------------

interface Described {
  description?: string;
  $ref?: string;
}
interface Parameter extends Described {
  name?: string;
}
interface Operation extends Described {
  summary?: string;
  parameters?: Parameter[];
}
interface Schema extends Described {
  properties?: Record<string, Described>;
}
interface OpenApi {
  info?: Described;
  paths?: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}

/** Follows local `$ref`s (JSON pointers into the same document); an unresolvable one leaves the node as is. */
function deref<T extends Described>(spec: unknown, node: T): T {
  let current: T = node;
  for (let hops = 0; hops < 10 && current.$ref?.startsWith('#/'); hops++) {
    const keys = current.$ref
      .slice(2)
      .split('/')
      .map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
    const target = keys.reduce<unknown>(
      (at, key) => (at && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined),
      spec,
    );
    if (!target || typeof target !== 'object') break;
    current = target as T;
  }
  return current;
}

/** A parameter or property described the same way under several owners: one entry, listing its owners. */
type Shared = Map<string, { label: string; text: string; owners: string[] }>;

function share(shared: Shared, owner: string, label: string, text: string | undefined): void {
  if (!text?.trim()) return;
  const key = `${label}\n${text}`;
  const entry = shared.get(key);
  if (entry) entry.owners.push(owner);
  else shared.set(key, { label, text, owners: [owner] });
}

function operationPassages(spec: OpenApi, shared: Shared): Passage[] {
  const out: Passage[] = [];
  for (const [path, item] of Object.entries(spec.paths ?? {})) {
    for (const [method, operation] of Object.entries(item)) {
      if (!HTTP_METHODS.has(method)) continue;
      const title = `${method.toUpperCase()} ${path}`;
      out.push(...passages(SPEC_FILE, title, [operation.summary, operation.description].filter(Boolean).join('\n\n')));
      for (const parameter of (operation.parameters ?? []).map((p) => deref(spec, p))) {
        if (parameter.name) share(shared, title, `parameter ${parameter.name}`, parameter.description);
      }
    }
  }
  return out;
}

function schemaPassages(spec: OpenApi, shared: Shared): Passage[] {
  const out: Passage[] = [];
  for (const [name, schema] of Object.entries(spec.components?.schemas ?? {})) {
    out.push(...passages(SPEC_FILE, `schema ${name}`, schema.description));
    for (const [property, definition] of Object.entries(schema.properties ?? {})) {
      share(shared, `schema ${name}`, `property ${property}`, definition.description);
    }
  }
  return out;
}

/** Passages of the contract; a shared filter parameter appears once, titled by its name alone, not once per route. */
function openApiPassages(source: string): Passage[] {
  const spec = (load(source) ?? {}) as OpenApi;
  const shared: Shared = new Map();
  const out = [
    ...passages(SPEC_FILE, 'API overview', spec.info?.description),
    ...operationPassages(spec, shared),
    ...schemaPassages(spec, shared),
  ];
  for (const { label, text, owners } of shared.values()) {
    out.push(...passages(SPEC_FILE, owners.length === 1 ? `${owners[0]} › ${label}` : label, text));
  }
  return out;
}

// Ranking ------------------------------------------------------------------------------------------

/** Term counts of a passage; a title's route is also read as words, so "changes" finds GET /v1/jobs/changes. */
function termCounts({ title, text }: Passage): { counts: Map<string, number>; length: number } {
  const titleTerms = tsvector(title);
  for (const [lexeme, positions] of tsvector(title.replace(/[/{}]+/g, ' '))) {
    if (!titleTerms.has(lexeme)) titleTerms.set(lexeme, positions);
  }
  const counts = new Map<string, number>();
  let length = 0;
  const add = (terms: Map<string, number[]>, weight: number) => {
    for (const [lexeme, positions] of terms) {
      counts.set(lexeme, (counts.get(lexeme) ?? 0) + weight * positions.length);
      length += weight * positions.length;
    }
  };
  add(tsvector(text), 1);
  add(titleTerms, TITLE_WEIGHT);
  return { counts, length };
}

/** A passage of a guide rather than of the contract. */
const isGuide = (passage: Passage) => passage.source !== SPEC_FILE;

function compareHits(a: DocHit, b: DocHit): number {
  if (a.score !== b.score) return b.score - a.score;
  if (a.source !== b.source) return a.source < b.source ? -1 : 1;
  return a.title < b.title ? -1 : a.title > b.title ? 1 : 0;
}

export class DocsIndex {
  private readonly postings = new Map<string, { passage: number; count: number }[]>();
  private readonly lengths: number[] = [];
  private readonly averageLength: number;

  constructor(readonly passages: readonly Passage[]) {
    for (const [i, passage] of passages.entries()) {
      const { counts, length } = termCounts(passage);
      this.lengths.push(length);
      for (const [term, count] of counts) {
        const list = this.postings.get(term);
        if (list) list.push({ passage: i, count });
        else this.postings.set(term, [{ passage: i, count }]);
      }
    }
    this.averageLength = this.lengths.reduce((sum, n) => sum + n, 0) / Math.max(1, passages.length);
  }

  /** Reads the guides (file names under docs/; by default the guides for API users) and openapi.yaml under rootDir. */
  static async load(rootDir: string, guides: readonly string[] = GUIDES): Promise<DocsIndex> {
    const out: Passage[] = [];
    for (const guide of guides) {
      const source = `docs/${guide}`;
      out.push(...markdownPassages(source, await readFile(`${rootDir}/${source}`, 'utf8')));
    }
    out.push(...openApiPassages(await readFile(`${rootDir}/${SPEC_FILE}`, 'utf8')));
    return new DocsIndex(out);
  }

  /** Number of passages. */
  get size(): number {
    return this.passages.length;
  }

  /**
   * The best `limit` passages for the query, best first; [] when no query word occurs anywhere. The score is
   * BM25 over the query's words and their synonyms (SYNONYMS, weighed less), times GUIDE_BOOST for a guide.
   */
  search(query: string, limit: number): DocHit[] {
    const hits = [...this.scores(query)].map(([i, score]): DocHit => ({ ...this.passages[i]!, score }));
    return hits.sort(compareHits).slice(0, Math.max(0, Math.floor(limit)));
  }

  /**
   * The passages titled `title` (a long section is several), whole: those the query matches first, best
   * first, then the others in the order of their source; at most `limit`.
   */
  passage(title: string, query: string, limit: number): DocHit[] {
    const scores = this.scores(query);
    const hits = this.passages.flatMap((p, i): DocHit[] => (p.title === title ? [{ ...p, score: scores.get(i) ?? 0 }] : []));
    return hits.sort((a, b) => b.score - a.score).slice(0, Math.max(0, Math.floor(limit)));
  }

  /** Each passage the query matches (by its index) with its score. */
  private scores(query: string): Map<number, number> {
    const scores = new Map<number, number>();
    const n = this.passages.length;
    for (const [term, weight] of queryTerms(query)) {
      const list = this.postings.get(term) ?? [];
      const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5));
      for (const { passage, count } of list) {
        const norm = K1 * (1 - B + (B * this.lengths[passage]!) / this.averageLength);
        scores.set(passage, (scores.get(passage) ?? 0) + (weight * idf * count * (K1 + 1)) / (count + norm));
      }
    }
    for (const [i, score] of scores) if (isGuide(this.passages[i]!)) scores.set(i, score * GUIDE_BOOST);
    return scores;
  }
}

const SYNONYM_LEXEMES = SYNONYMS.map((group) => group.map((phrase) => lexemes(phrase)));

/** The query's words (weight 1) and the words of the synonyms it names (SYNONYM_WEIGHT), as lexemes. */
export function queryTerms(query: string): Map<string, number> {
  const terms = new Map<string, number>(lexemes(query).map((term) => [term, 1]));
  const asked = new Set(terms.keys());
  for (const group of SYNONYM_LEXEMES) {
    if (!group.some((phrase) => phrase.length > 0 && phrase.every((term) => asked.has(term)))) continue;
    for (const term of group.flat()) if (!terms.has(term)) terms.set(term, SYNONYM_WEIGHT);
  }
  return terms;
}
