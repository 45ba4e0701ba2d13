// Generated Boolean queries for the oracle tests, each rendered three ways: in our syntax (parseAdvanced), as a
// to_tsquery() input with the same structure, and as SQL composing phraseto_tsquery / to_tsquery with && || !!.

import { random } from './oracle.js';

export type Surface =
  | { t: 'term'; text: string; prefix: boolean }
  | { t: 'phrase'; text: string }
  | { t: 'and'; l: Surface; r: Surface; op: 'AND' | '&' | '' }
  | { t: 'or'; l: Surface; r: Surface; op: 'OR' | '|' }
  | { t: 'not'; x: Surface; op: 'NOT' | '!' };

export interface GeneratedQuery {
  surface: Surface;
  /** Our syntax. */
  advanced: string;
  /** The same query for to_tsquery('jps_english', ...); null when it has a phrase (to_tsquery nests those differently). */
  toTsquery: string | null;
  /** SQL building the same tsquery from its parts, with its parameters. */
  sql: { text: string; params: string[] };
}

const STOP = ['the', 'of', 'and', 'or', 'not', 'a', 'to', 'with', 'is', 'on', 'it', 'so', 'very', 'once', 'The', 'OF'];
// prettier-ignore
const TRICKY = [
  'e-mail', 'Mid-Market', 'state-of-the-art', "don't", "O'Reilly", 'C++', 'C#', '.NET', '$85,000', '24/7', '0-1', '3.5', 'COVID-19',
  'K-12', 'Wi-Fi', 'jobs@acme.com', 'www.example.org', 'https://x.com/a?b=1', 'Café', 'naïve', 'résumé', 'Medical-Surgical', 'co-op',
  '1st', 'v2.3.4', 'x1-y2', '401', 'k', '10:30', 'and', 'or', 'not', 'And', 'a\\b', "it's", '€50', '₹9,00,000',
];
const PRIORITY = { or: 1, and: 2, not: 3, term: 4, phrase: 4 } as const;
const DELIMITERS = /[()&|!"\s]/g;

/** Words of documents, cleaned of the characters our syntax treats as operators. */
export function vocabulary(docs: string[]): string[][] {
  return docs.map((d) =>
    d
      .split(/\s+/)
      .map((w) => w.replace(DELIMITERS, ''))
      .filter((w) => w && w !== ':*' && !/^(AND|OR|NOT)$/.test(w)),
  );
}

export function generateQueries(docs: string[], count: number, seed: number, phrases: boolean): GeneratedQuery[] {
  const r = random(seed);
  const words = vocabulary(docs).filter((w) => w.length > 0);
  const word = (): string => {
    const roll = r.next();
    if (roll < 0.15) return r.pick(STOP);
    if (roll < 0.3) return r.pick(TRICKY);
    return r.pick(r.pick(words));
  };
  const leaf = (): Surface => {
    if (phrases && r.next() < 0.25) {
      const doc = r.pick(words);
      const start = r.int(doc.length);
      return { t: 'phrase', text: doc.slice(start, start + 1 + r.int(5)).join(' ') };
    }
    const text = word();
    if (r.next() < 0.2 && text.length > 2) return { t: 'term', text: text.slice(0, 2 + r.int(text.length - 1)), prefix: true };
    return { t: 'term', text, prefix: false };
  };
  const tree = (depth: number): Surface => {
    const roll = r.next();
    if (depth <= 0 || roll < 0.3) return leaf();
    if (roll < 0.55) return { t: 'and', l: tree(depth - 1), r: tree(depth - 1), op: r.pick(['AND', '&', ''] as const) };
    if (roll < 0.8) return { t: 'or', l: tree(depth - 1), r: tree(depth - 1), op: r.pick(['OR', '|'] as const) };
    return { t: 'not', x: tree(depth - 1), op: r.pick(['NOT', '!'] as const) };
  };
  const out: GeneratedQuery[] = [];
  while (out.length < count) {
    const surface = tree(1 + r.int(4));
    const extraParens = () => r.next() < 0.1;
    out.push({
      surface,
      advanced: render(surface, 0, false, extraParens),
      toTsquery: hasPhrase(surface) ? null : render(surface, 0, true, () => false),
      sql: compose(surface),
    });
  }
  return out;
}

function hasPhrase(s: Surface): boolean {
  switch (s.t) {
    case 'phrase':
      return true;
    case 'term':
      return false;
    case 'not':
      return hasPhrase(s.x);
    default:
      return hasPhrase(s.l) || hasPhrase(s.r);
  }
}

/** A to_tsquery operand: quoted, so that its text reaches the parser whole. */
function operand(text: string, prefix: boolean): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "''")}'${prefix ? ':*' : ''}`;
}

/** Renders with the parentheses precedence needs (NOT > AND > OR), and sometimes more. */
function render(s: Surface, parent: number, pg: boolean, extraParens: () => boolean): string {
  let text: string;
  const own = PRIORITY[s.t];
  switch (s.t) {
    case 'term':
      text = pg ? operand(s.text, s.prefix) : `${s.text}${s.prefix ? ':*' : ''}`;
      break;
    case 'phrase':
      text = `"${s.text}"`;
      break;
    case 'not':
      text = `${pg ? '!' : s.op === 'NOT' ? 'NOT ' : '!'}${render(s.x, own, pg, extraParens)}`;
      break;
    case 'and': {
      const op = pg ? ' & ' : s.op === '' ? ' ' : ` ${s.op} `;
      text = `${render(s.l, own, pg, extraParens)}${op}${render(s.r, own + 0.5, pg, extraParens)}`;
      break;
    }
    case 'or':
      text = `${render(s.l, own, pg, extraParens)}${pg ? ' | ' : ` ${s.op} `}${render(s.r, own + 0.5, pg, extraParens)}`;
      break;
  }
  return own < parent || (own < 4 && extraParens()) ? `(${text})` : text;
}

function compose(s: Surface): { text: string; params: string[] } {
  const params: string[] = [];
  const walk = (n: Surface): string => {
    switch (n.t) {
      case 'term':
        params.push(operand(n.text, n.prefix));
        return `to_tsquery('jps_english', $${params.length})`;
      case 'phrase':
        params.push(n.text);
        return `phraseto_tsquery('jps_english', $${params.length})`;
      case 'not':
        return `(!! ${walk(n.x)})`;
      case 'and':
        return `(${walk(n.l)} && ${walk(n.r)})`;
      case 'or':
        return `(${walk(n.l)} || ${walk(n.r)})`;
    }
  };
  const text = walk(s);
  return { text: `SELECT (${text})::text AS q`, params };
}
