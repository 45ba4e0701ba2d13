// The tree of a text-search query (built by query.ts, printed and evaluated by tsquery.ts, evaluated
// over an index by inverted-index.ts).

/** One word of a phrase: `offset` counts positions from the first word, stop words included (`<2>` is offset 2). */
export interface PhraseItem {
  lexeme: string;
  prefix: boolean;
  offset: number;
}

/**
 * A query, as a tree:
 * - term: one lexeme (prefix: any lexeme starting with it, `'manag':*`);
 * - phrase: two or more lexemes at fixed distances, ascending offsets from 0 (`'data' <-> 'engin'`);
 * - and / or: two or more arguments (nested ands, and nested ors, are flattened);
 * - not: the documents the argument does not match.
 * The empty query (nothing but stop words: PostgreSQL's empty tsquery, which matches nothing) is the `or` of no
 * arguments, EMPTY. Builders below keep these invariants; stop words never appear.
 */
export type Query =
  | { kind: 'term'; lexeme: string; prefix: boolean }
  | { kind: 'phrase'; items: PhraseItem[] }
  | { kind: 'and' | 'or'; args: Query[] }
  | { kind: 'not'; arg: Query };
