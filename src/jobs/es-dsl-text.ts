// The text clauses of es_dsl (match, match_phrase, query_string, simple_query_string) as one tree of
// words, phrases, AND, OR and NOT, printed in the Boolean syntax of title_advanced (spec 4.2). The two
// query-string dialects are parsed with Lucene's semantics; what the Boolean syntax cannot say is
// refused (400) with the character where it stands.

import { invalidRequest } from '../errors.js';
import { phraseQuery } from '../search/query.js';

const show = (v: unknown) => JSON.stringify(v);

export type TextNode =
  | { kind: 'word'; text: string; prefix: boolean }
  | { kind: 'phrase'; text: string }
  | { kind: 'and' | 'or'; args: TextNode[] }
  | { kind: 'not'; arg: TextNode };
export const group = (kind: 'and' | 'or', args: TextNode[]): TextNode => (args.length === 1 ? args[0]! : { kind, args });
/** A word the Boolean syntax reads as one operand as it is; any other is quoted, which analyzes it the same way. */
const BARE = /^[^\s&|!()":*\\]+$/u;
const isBare = (word: string) => BARE.test(word) && !['AND', 'OR', 'NOT'].includes(word);

/** `"text"`: phraseQuery(text), as title_advanced reads a quoted phrase; a double quote inside must not matter. */
function quoted(phrase: string, path: string): string {
  const cleaned = phrase.replaceAll('"', ' ');
  if (cleaned !== phrase && show(phraseQuery(cleaned)) !== show(phraseQuery(phrase))) {
    throw invalidRequest(`${path}: the double quote in ${show(phrase)} cannot be expressed in a Boolean text search.`);
  }
  return `"${cleaned}"`;
}

export function print(node: TextNode, path: string): string {
  const inner = (n: TextNode) => (n.kind === 'and' || n.kind === 'or' ? `(${print(n, path)})` : print(n, path));
  switch (node.kind) {
    case 'word':
      if (node.prefix) return `${node.text}:*`;
      return isBare(node.text) ? node.text : quoted(node.text, path);
    case 'phrase':
      return quoted(node.text, path);
    case 'not':
      return `!${inner(node.arg)}`;
    default:
      return node.args.map(inner).join(node.kind === 'and' ? ' & ' : ' | ');
  }
}

const MAX_NESTING = 30;
function word(token: string, at: number, path: string, literalQuestionMark: boolean): TextNode {
  const prefix = token.endsWith('*');
  const stem = prefix ? token.slice(0, -1) : token;
  if (stem === '' || stem.includes('*') || (!literalQuestionMark && stem.includes('?')))
    throw invalidRequest(`${path}: the wildcard at character ${at} is not supported; only a trailing * (prefix) is.`);
  if (prefix && !isBare(stem))
    throw invalidRequest(`${path}: the prefix ${show(token)} at character ${at} holds characters a prefix search cannot take.`);
  return { kind: 'word', text: stem, prefix };
}

type Operator = 'and' | 'or' | 'not' | 'req' | 'open' | 'close';
type Token = { kind: 'word' | 'phrase'; text: string; at: number } | { kind: Operator | 'end'; at: number };
const QS_REFUSED: Record<string, string> = {
  ':': 'a field name',
  '^': 'a boost',
  '~': 'fuzziness or proximity',
  '[': 'a range',
  ']': 'a range',
  '{': 'a range',
  '}': 'a range',
  '/': 'a regular expression',
  '\\': 'an escape',
};
const QS_PUNCTUATION: Record<string, Operator> = { '(': 'open', ')': 'close', '+': 'req', '-': 'not', '!': 'not', '&&': 'and', '||': 'or' };
const QS_WORDS: Record<string, Operator> = { AND: 'and', OR: 'or', NOT: 'not' };

/** query_string tokens, as Lucene's classic parser cuts them: + - ! only start a term; AND OR NOT && || are operators. */
function queryStringTokens(query: string, path: string): Token[] {
  const tokens: Token[] = [];
  const refuse = (i: number) =>
    invalidRequest(`${path}: ${QS_REFUSED[query[i]!]} (${show(query[i])} at character ${i + 1}) is not supported.`);
  let i = 0;
  while (i < query.length) {
    const at = i + 1;
    const two = query.slice(i, i + 2);
    const one = query[i]!;
    if (/\s/u.test(one)) {
      i += 1;
    } else if (two === '&&' || two === '||' || QS_PUNCTUATION[one]) {
      const double = two === '&&' || two === '||';
      tokens.push({ kind: QS_PUNCTUATION[double ? two : one]!, at });
      i += double ? 2 : 1;
    } else if (QS_REFUSED[one]) {
      throw refuse(i);
    } else if (one === '"') {
      const close = query.indexOf('"', i + 1);
      if (close < 0) throw invalidRequest(`${path}: the quote at character ${at} is not closed.`);
      if (query.slice(i, close).includes('\\')) throw refuse(query.indexOf('\\', i));
      tokens.push({ kind: 'phrase', text: query.slice(i + 1, close), at });
      i = close + 1;
      if (QS_REFUSED[query[i] ?? '']) throw refuse(i);
    } else {
      let j = i;
      while (j < query.length && !/\s/u.test(query[j]!) && !'()"!'.includes(query[j]!) && !QS_REFUSED[query[j]!]) j += 1;
      const text = query.slice(i, j);
      if (j < query.length && QS_REFUSED[query[j]!]) throw refuse(j);
      tokens.push(QS_WORDS[text] ? { kind: QS_WORDS[text], at } : { kind: 'word', text, at });
      i = j;
    }
  }
  tokens.push({ kind: 'end', at: query.length + 1 });
  return tokens;
}

type Occur = 'must' | 'should' | 'must_not';
/**
 * query_string with Lucene's classic-parser semantics (QueryParserBase.addClause): AND makes both sides
 * required, OR (with default_operator AND) both optional, + required, - ! NOT prohibited. A group with
 * required clauses matches them all (its optional ones only score); otherwise one of its optional ones;
 * prohibited ones must not match (a group of only those is "all but", as Elasticsearch makes it).
 */
export function parseQueryString(query: string, defaultAnd: boolean, path: string): TextNode {
  const tokens = queryStringTokens(query, path);
  let i = 0;
  const fail = (what: string, at: number) => invalidRequest(`${path}: ${what} at character ${at}.`);
  const primary = (depth: number): TextNode => {
    const t = tokens[i++]!;
    if (t.kind === 'word') return word(t.text, t.at, path, false);
    if (t.kind === 'phrase') return { kind: 'phrase', text: t.text };
    if (t.kind === 'and' || t.kind === 'or') throw fail(`operator ${t.kind.toUpperCase()} has nothing on its left`, t.at);
    if (t.kind !== 'open') throw fail(t.kind === 'req' || t.kind === 'not' ? 'a second + - ! or NOT' : 'a term is missing', t.at);
    if (depth >= MAX_NESTING) throw fail(`the query nests more than ${MAX_NESTING} levels`, t.at);
    const inner = clauses(depth + 1);
    if (tokens[i++]!.kind !== 'close') throw fail('the parenthesis is not closed', t.at);
    return inner;
  };
  const clauses = (depth: number): TextNode => {
    const list: { occur: Occur; node: TextNode }[] = [];
    let conj: 'and' | 'or' | undefined;
    for (;;) {
      const mod = tokens[i]!.kind === 'req' || tokens[i]!.kind === 'not' ? tokens[i++]!.kind : undefined;
      const node = primary(depth);
      const last = list.at(-1);
      if (last && last.occur !== 'must_not' && conj === 'and') last.occur = 'must';
      if (last && last.occur !== 'must_not' && conj === 'or' && defaultAnd) last.occur = 'should';
      const required = defaultAnd ? conj !== 'or' : mod === 'req' || conj === 'and';
      list.push({ occur: mod === 'not' ? 'must_not' : required ? 'must' : 'should', node });
      const next = tokens[i]!;
      if (next.kind === 'end' || next.kind === 'close') break;
      conj = next.kind === 'and' || next.kind === 'or' ? (i++, next.kind) : undefined;
    }
    return occursNode(list);
  };
  const node = clauses(0);
  if (tokens[i]!.kind !== 'end') throw fail('the parenthesis has no opening one', tokens[i]!.at);
  return node;
}

function occursNode(list: { occur: Occur; node: TextNode }[]): TextNode {
  const of = (occur: Occur) => list.filter((c) => c.occur === occur).map((c) => c.node);
  const [must, should] = [of('must'), of('should')];
  const positive = must.length > 0 ? must : should.length > 0 ? [group('or', should)] : [];
  return group('and', [...positive, ...of('must_not').map((arg): TextNode => ({ kind: 'not', arg }))]);
}

/** One level of a simple_query_string: the tree so far, the operator waiting for the next operand, pending minus signs. */
interface SimpleLevel {
  top?: TextNode;
  previous?: 'and' | 'or';
  current?: 'and' | 'or';
  nots: number;
}

/**
 * simple_query_string with Lucene's SimpleQueryParser semantics: + and | set the operator before the
 * next term (the first one given wins), whitespace means default_operator; operators fold left with no
 * precedence ("a | b + c" is (a | b) & c); - negates the next term, phrase or group.
 */
export class SimpleQueryParser {
  private i = 0;
  constructor(
    private readonly query: string,
    private readonly defaultAnd: boolean,
    private readonly path: string,
  ) {}

  parse(): TextNode {
    const node = this.level(0);
    if (!node) throw invalidRequest(`${this.path}: the query holds no term.`);
    return node;
  }

  private fail(what: string): never {
    throw invalidRequest(`${this.path}: ${what}.`);
  }

  private add(level: SimpleLevel, branch: TextNode): void {
    const node: TextNode = level.nots % 2 === 1 ? { kind: 'not', arg: branch } : branch;
    if (!level.top) level.top = node;
    else {
      const op = level.current ?? (this.defaultAnd ? 'and' : 'or');
      // A change of operator makes what came before one operand of the new one.
      level.top =
        level.previous === op && level.top.kind === op
          ? { kind: op, args: [...level.top.args, node] }
          : { kind: op, args: [level.top, node] };
      level.previous = op;
    }
    level.current = undefined;
  }

  /** Operands and operators up to the ")" closing this level (left for the caller) or the end. */
  private level(depth: number): TextNode | undefined {
    const level: SimpleLevel = { nots: 0 };
    while (this.i < this.query.length) {
      const ch = this.query[this.i]!;
      if (ch === ')') {
        if (depth === 0) this.fail(`the parenthesis at character ${this.i + 1} has no opening one`);
        return level.top;
      }
      if (ch === '-') {
        // Consecutive minus signs cancel out; anything else, even a blank, ends the negation.
        level.nots += 1;
        this.i += 1;
        continue;
      }
      if (ch === '+' || ch === '|') {
        if (!level.current && level.top) level.current = ch === '+' ? 'and' : 'or';
        this.i += 1;
      } else if (' \t\n\r'.includes(ch)) {
        this.i += 1;
      } else {
        this.add(level, ch === '(' ? this.group(depth) : ch === '"' ? this.phrase() : this.token());
      }
      level.nots = 0;
    }
    return level.top;
  }

  private group(depth: number): TextNode {
    const at = this.i + 1;
    if (depth >= MAX_NESTING) this.fail(`the query nests more than ${MAX_NESTING} levels at character ${at}`);
    this.i += 1;
    const inner = this.level(depth + 1);
    if (this.query[this.i] !== ')') this.fail(`the parenthesis at character ${at} is not closed`);
    if (!inner) this.fail(`the parentheses at character ${at} are empty`);
    this.i += 1;
    return inner;
  }

  private phrase(): TextNode {
    const close = this.query.indexOf('"', this.i + 1);
    if (close < 0 || close === this.i + 1)
      this.fail(`the quote at character ${this.i + 1} ${close < 0 ? 'is not closed' : 'holds no phrase'}`);
    if (this.query[close + 1] === '~' || this.query.slice(this.i, close).includes('\\'))
      this.fail(`proximity (~) and escapes (\\) are not supported (character ${this.i + 1})`);
    const text = this.query.slice(this.i + 1, close);
    this.i = close + 1;
    return { kind: 'phrase', text };
  }

  private token(): TextNode {
    const at = this.i + 1;
    let j = this.i;
    while (j < this.query.length && !' \t\n\r"|+()'.includes(this.query[j]!)) j += 1;
    const token = this.query.slice(this.i, j);
    if (/[~\\]/.test(token)) this.fail(`fuzziness (~) and escapes (\\) are not supported (character ${at})`);
    this.i = j;
    return word(token, at, this.path, true);
  }
}
