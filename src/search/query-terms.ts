// The lexemes a query asks to be present (not negated, not prefixes): what relevance is scored on.

import type { Query } from './query.js';

export function positiveLexemes(query: Query, negated = false): string[] {
  switch (query.kind) {
    case 'term':
      return negated || query.prefix ? [] : [query.lexeme];
    case 'phrase':
      return negated ? [] : query.items.filter((i) => !i.prefix).map((i) => i.lexeme);
    case 'and':
    case 'or':
      return query.args.flatMap((a) => positiveLexemes(a, negated));
    case 'not':
      return positiveLexemes(query.arg, !negated);
  }
}
