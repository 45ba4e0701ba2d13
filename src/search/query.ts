// Text-search queries with PostgreSQL's semantics: the AST, the phraseto_tsquery / plainto_tsquery equivalents,
// and the Boolean syntax of title_advanced / description_advanced (tokenizer + recursive descent). Printing as a
// tsquery literal and the reference evaluation on one document live in tsquery.ts, re-exported here.

import { parseText, type Token } from './analyze.js';
import type { Query } from './query-ast.js';
import { matches } from './tsquery.js';

export type { PhraseItem, Query } from './query-ast.js';
export { matches, toTsquery, type Document } from './tsquery.js';

export const EMPTY: Query = Object.freeze({ kind: 'or', args: Object.freeze([]) as unknown as Query[] });

export function isEmpty(q: Query): boolean {
  return q.kind === 'or' && q.args.length === 0;
}

/**
 * What to_tsquery makes of one operand (pushval_morph): its lexemes as a phrase at their distances in the text,
 * leading and trailing stop words dropped; one lexeme is a term, none is EMPTY.
 */
export function fromWords(words: Token[], prefix = false): Query {
  if (words.length === 0) return EMPTY;
  const first = words[0]!.position;
  if (words.length === 1) return { kind: 'term', lexeme: words[0]!.lexeme, prefix };
  return { kind: 'phrase', items: words.map((w) => ({ lexeme: w.lexeme, prefix, offset: w.position - first })) };
}

/** One operand of the Boolean syntax, analyzed as to_tsquery('jps_english', operand) would. */
export function operandQuery(text: string, prefix = false): Query {
  return fromWords(parseText(text), prefix);
}

/**
 * phraseto_tsquery('jps_english', text): all words, in order, at their distances.
 * Texts of more than 16383 words are not mirrored (PostgreSQL piles the words beyond onto one position).
 */
export function phraseQuery(text: string): Query {
  return fromWords(parseText(text));
}

/** plainto_tsquery('jps_english', text): every word present, anywhere. */
export function plainQuery(text: string): Query {
  return and(parseText(text).map(({ lexeme }) => ({ kind: 'term', lexeme, prefix: false })));
}

function combine(kind: 'and' | 'or', args: Query[]): Query {
  // Like PostgreSQL's stop-word cleanup: an operator that lost an operand becomes the other one.
  const kept = args.filter((a) => !isEmpty(a)).flatMap((a) => (a.kind === kind ? a.args : [a]));
  if (kept.length === 0) return EMPTY;
  if (kept.length === 1) return kept[0]!;
  return { kind, args: kept };
}

export function and(args: Query[]): Query {
  return combine('and', args);
}

export function or(args: Query[]): Query {
  return combine('or', args);
}

export function not(arg: Query): Query {
  return isEmpty(arg) ? EMPTY : { kind: 'not', arg };
}

/**
 * Whether every matching document must hold one of the query's lexemes: false for the empty query and for
 * queries that also match a document without any of them (`!a`, `a | !b`). The API refuses those (400).
 */
export function hasPositiveTerm(q: Query): boolean {
  return !isEmpty(q) && !matches(q, new Map());
}

/** A mistake in a Boolean query; the message says what and where (1-based character), the caller names the parameter. */
export class QuerySyntaxError extends Error {
  constructor(
    message: string,
    readonly character: number,
  ) {
    super(message);
    this.name = 'QuerySyntaxError';
  }
}

type Lexical =
  | { kind: 'term'; text: string; prefix: boolean; at: number }
  | { kind: 'phrase'; text: string; at: number }
  | { kind: 'and' | 'or' | 'not' | 'open' | 'close'; text: string; at: number }
  | { kind: 'end'; at: number };

const OPERATOR_WORDS: Record<string, 'and' | 'or' | 'not'> = { AND: 'and', OR: 'or', NOT: 'not' };
const PUNCTUATION: Record<string, 'and' | 'or' | 'not' | 'open' | 'close'> = {
  '&': 'and',
  '|': 'or',
  '!': 'not',
  '(': 'open',
  ')': 'close',
};
const WHITESPACE = /^\s$/u;
/**
 * Nesting of parentheses and NOTs allowed. PostgreSQL's tsquery parser holds at most 32 pending operators per
 * parenthesis level (two binary ones plus a run of NOTs), so 30 keeps every printed query readable by it.
 */
const MAX_DEPTH = 30;

function tokenize(text: string): Lexical[] {
  const chars = [...text];
  const out: Lexical[] = [];
  let i = 0;
  while (i < chars.length) {
    const ch = chars[i]!;
    const at = i + 1;
    if (WHITESPACE.test(ch)) {
      i += 1;
    } else if (PUNCTUATION[ch]) {
      out.push({ kind: PUNCTUATION[ch], text: ch, at });
      i += 1;
    } else if (ch === '"') {
      const close = chars.indexOf('"', i + 1);
      if (close < 0) throw new QuerySyntaxError(`unterminated quote at character ${at}`, at);
      out.push({ kind: 'phrase', text: chars.slice(i + 1, close).join(''), at });
      i = close + 1;
    } else {
      let j = i;
      while (j < chars.length && !WHITESPACE.test(chars[j]!) && !PUNCTUATION[chars[j]!] && chars[j] !== '"') j += 1;
      const word = chars.slice(i, j).join('');
      if (OPERATOR_WORDS[word]) out.push({ kind: OPERATOR_WORDS[word], text: word, at });
      else if (word === ':*') throw new QuerySyntaxError(`prefix marker :* at character ${at} must follow a word`, at);
      else if (word.endsWith(':*')) out.push({ kind: 'term', text: word.slice(0, -2), prefix: true, at });
      else out.push({ kind: 'term', text: word, prefix: false, at });
      i = j;
    }
  }
  out.push({ kind: 'end', at: chars.length + 1 });
  return out;
}

/** Recursive descent over: or := and (OR and)* ; and := unary ([AND] unary)* ; unary := NOT unary | primary. */
class BooleanParser {
  private i = 0;
  private depth = 0;
  constructor(private readonly tokens: Lexical[]) {}

  private get peek(): Lexical {
    return this.tokens[this.i]!;
  }

  private startsOperand(t: Lexical): boolean {
    return t.kind === 'term' || t.kind === 'phrase' || t.kind === 'open' || t.kind === 'not';
  }

  private operator(): Lexical & { text: string } {
    const op = this.tokens[this.i++] as Lexical & { text: string };
    if (!this.startsOperand(this.peek))
      throw new QuerySyntaxError(`operator ${op.text} at character ${op.at} has nothing on its right`, op.at);
    return op;
  }

  private enter(at: number): void {
    this.depth += 1;
    if (this.depth > MAX_DEPTH)
      throw new QuerySyntaxError(`query nests too deeply at character ${at} (at most ${MAX_DEPTH} levels of parentheses and NOT)`, at);
  }

  parse(): Query {
    if (this.peek.kind === 'end') return EMPTY;
    const q = this.or();
    if (this.peek.kind === 'close') throw new QuerySyntaxError(`unbalanced parenthesis at character ${this.peek.at}`, this.peek.at);
    return q;
  }

  private or(): Query {
    const args = [this.and()];
    while (this.peek.kind === 'or') {
      this.operator();
      args.push(this.and());
    }
    return or(args);
  }

  private and(): Query {
    const args = [this.unary()];
    for (;;) {
      if (this.peek.kind === 'and') this.operator();
      else if (!this.startsOperand(this.peek)) break;
      args.push(this.unary());
    }
    return and(args);
  }

  private unary(): Query {
    if (this.peek.kind !== 'not') return this.primary();
    const op = this.operator();
    this.enter(op.at);
    const arg = this.unary();
    this.depth -= 1;
    return not(arg);
  }

  private primary(): Query {
    const t = this.tokens[this.i++]!;
    switch (t.kind) {
      case 'term':
        return operandQuery(t.text, t.prefix);
      case 'phrase':
        return phraseQuery(t.text);
      case 'open': {
        if (this.peek.kind === 'close') throw new QuerySyntaxError(`empty parentheses at character ${t.at}`, t.at);
        if (this.peek.kind === 'end') throw new QuerySyntaxError(`unbalanced parenthesis at character ${t.at}`, t.at);
        this.enter(t.at);
        const inner = this.or();
        this.depth -= 1;
        if (this.tokens[this.i++]!.kind !== 'close') throw new QuerySyntaxError(`unbalanced parenthesis at character ${t.at}`, t.at);
        return inner;
      }
      case 'and':
      case 'or':
        throw new QuerySyntaxError(`operator ${t.text} at character ${t.at} has nothing on its left`, t.at);
      default:
        // A ')' where an operand should start; operators make sure nothing else gets here.
        throw new QuerySyntaxError(`unbalanced parenthesis at character ${t.at}`, t.at);
    }
  }
}

/**
 * Parses the Boolean syntax: AND, OR, NOT (upper case; lower-case and/or/not are words) or &, |, !; parentheses;
 * "quoted phrases" (as phraseQuery); word:* prefixes; adjacent operands are ANDed; NOT binds tighter than AND,
 * AND tighter than OR. Each word is analyzed as to_tsquery would (a compound like e-mail becomes a phrase), and
 * operators left without operands by stop words collapse as in PostgreSQL. Throws QuerySyntaxError.
 */
export function parseAdvanced(text: string): Query {
  return new BooleanParser(tokenize(text)).parse();
}
