// A query as PostgreSQL sees it: printed as a tsquery literal, and evaluated against one document with exactly
// the semantics of `tsvector @@ tsquery` (the reference the inverted-index evaluator is tested against).

import type { Query } from './query-ast.js';

// Operator priorities of PostgreSQL's tsquery output (tsquery.c): they decide where parentheses go.
const PRIORITY = { not: 4, phrase: 3, and: 2, or: 1 } as const;

function quote(lexeme: string, prefix: boolean): string {
  return `'${lexeme.replace(/['\\]/g, (ch) => ch + ch)}'${prefix ? ':*' : ''}`;
}

function infix(q: Query, parent: number): string {
  switch (q.kind) {
    case 'term':
      return quote(q.lexeme, q.prefix);
    case 'not':
      return `!${infix(q.arg, PRIORITY.not)}`;
    case 'phrase': {
      let text = quote(q.items[0]!.lexeme, q.items[0]!.prefix);
      for (let i = 1; i < q.items.length; i += 1) {
        const distance = q.items[i]!.offset - q.items[i - 1]!.offset;
        text += ` ${distance === 1 ? '<->' : `<${distance}>`} ${quote(q.items[i]!.lexeme, q.items[i]!.prefix)}`;
      }
      return PRIORITY.phrase < parent ? `( ${text} )` : text;
    }
    case 'and':
    case 'or': {
      const text = q.args.map((a) => infix(a, PRIORITY[q.kind])).join(q.kind === 'and' ? ' & ' : ' | ');
      return PRIORITY[q.kind] < parent ? `( ${text} )` : text;
    }
  }
}

/** The query as a tsquery literal, printed the way PostgreSQL prints it (`::text` of the same tsquery). */
export function toTsquery(q: Query): string {
  return q.kind === 'or' && q.args.length === 0 ? '' : infix(q, 0);
}

/** A document: each lexeme with its ascending positions, as tsvector() in analyze.ts builds it. */
export type Document = ReadonlyMap<string, readonly number[]>;

function positionsOf(doc: Document, lexeme: string, prefix: boolean): Set<number> {
  if (!prefix) return new Set(doc.get(lexeme));
  const all = new Set<number>();
  for (const [key, positions] of doc) if (key.startsWith(lexeme)) for (const p of positions) all.add(p);
  return all;
}

function hasLexeme(doc: Document, lexeme: string, prefix: boolean): boolean {
  if (!prefix) return doc.has(lexeme);
  for (const key of doc.keys()) if (key.startsWith(lexeme)) return true;
  return false;
}

/**
 * `to_tsvector(text) @@ query` for the document of that text, by definition: the reference the inverted-index
 * evaluator is tested against. A phrase matches where every word sits at the first word's position plus its offset.
 */
export function matches(q: Query, doc: Document): boolean {
  switch (q.kind) {
    case 'term':
      return hasLexeme(doc, q.lexeme, q.prefix);
    case 'phrase': {
      const [first, ...rest] = q.items.map((item) => positionsOf(doc, item.lexeme, item.prefix));
      return [...first!].some((p) => rest.every((positions, i) => positions.has(p + q.items[i + 1]!.offset)));
    }
    case 'and':
      return q.args.every((a) => matches(a, doc));
    case 'or':
      return q.args.some((a) => matches(a, doc));
    case 'not':
      return !matches(q.arg, doc);
  }
}
