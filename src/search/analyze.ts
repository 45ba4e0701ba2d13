// Text → lexemes with positions, exactly as to_tsvector('jps_english', text) makes them in PostgreSQL 18 with
//   CREATE TEXT SEARCH CONFIGURATION jps_english (COPY = english);
//   ALTER TEXT SEARCH CONFIGURATION jps_english ALTER MAPPING FOR hword, hword_part, word WITH unaccent, english_stem;
// The default parser cuts tokens (pg-parser.ts); each token type goes to its dictionaries: words to english_stem
// (non-ASCII words through unaccent first), numbers, e-mail addresses, hosts, URLs and paths to `simple`
// (lower-cased as they are), and blanks, tags, entities and protocol heads nowhere. Every token that has
// dictionaries takes the next position, stop words included.

import { parseTokens, type TokenType } from './pg-parser.js';
import { englishStem, pgLower } from './porter2.js';
import { UNACCENT } from './unaccent.js';

export interface Token {
  lexeme: string;
  /** 1-based, as to_tsvector counts (at most MAX_POSITION). */
  position: number;
}

/** PostgreSQL's limits: positions stop at 16383, a lexeme keeps at most 255 of them, longer tokens are skipped. */
export const MAX_POSITION = 16383;
export const MAX_POSITIONS_PER_LEXEME = 255;
const MAX_TOKEN_BYTES = 2047;

type Dictionary = (token: string) => string | null;

const stem: Dictionary = (token) => englishStem(token);
const unaccentThenStem: Dictionary = (token) => englishStem(unaccent(token));
const simple: Dictionary = (token) => pgLower(token);

const MAPPING: Partial<Record<TokenType, Dictionary>> = {
  asciiword: stem,
  asciihword: stem,
  hword_asciipart: stem,
  word: unaccentThenStem,
  hword: unaccentThenStem,
  hword_part: unaccentThenStem,
  numword: simple,
  email: simple,
  url: simple,
  host: simple,
  sfloat: simple,
  version: simple,
  hword_numpart: simple,
  numhword: simple,
  url_path: simple,
  file: simple,
  float: simple,
  int: simple,
  uint: simple,
};

/** The unaccent dictionary: each code point with a rule replaced (rules are single code points, so no overlap). */
export function unaccent(token: string): string {
  let out = '';
  for (const ch of token) out += UNACCENT.get(ch.codePointAt(0)!) ?? ch;
  return out;
}

/** What the dictionaries make of each position-taking token of a text: a lexeme, or null for a stop word. */
export function dictionaryOutputs(text: string): (string | null)[] {
  const out: (string | null)[] = [];
  for (const { type, text: token } of parseTokens(text)) {
    const dictionary = MAPPING[type];
    if (!dictionary) continue;
    if (token.length * 3 >= MAX_TOKEN_BYTES && Buffer.byteLength(token, 'utf8') >= MAX_TOKEN_BYTES) continue;
    out.push(dictionary(token));
  }
  return out;
}

// An ASCII blank always ends a token of the default parser, except inside an HTML tag or comment
// (`<a title="x y">`), which only a "<" can open. What follows a blank is read the same whatever came
// before it (only the very start of a text differs: there "..", "~/x" are file names, after a blank
// not). So a text without "<" is its first chunk as is, then each later chunk as " " + chunk; and chunks
// ("Python,", "401(k)", "e-mail") recur across descriptions: their outputs are computed once.
const CHUNK_CACHE_LIMIT = 500_000;
const chunkCache = new Map<string, (string | null)[]>();
const ASCII_BLANKS = /[ \t\n\r\f\v]+/;

/**
 * The text cut at its ASCII blanks, when its outputs are those of its chunks in order (the first read
 * as it is with dictionaryOutputs, the others with laterChunkOutputs; empty chunks give nothing), or null when
 * the text must be read whole by dictionaryOutputs (it holds a "<").
 */
export function textChunks(text: string): string[] | null {
  return text.includes('<') ? null : text.split(ASCII_BLANKS);
}

/** The outputs of a later chunk of a text (read after a blank), uncached. */
export const laterChunkOutputs = (chunk: string): (string | null)[] => dictionaryOutputs(` ${chunk}`);

function chunkOutputs(chunk: string): (string | null)[] {
  let outputs = chunkCache.get(chunk);
  if (outputs === undefined) {
    outputs = laterChunkOutputs(chunk);
    if (chunkCache.size >= CHUNK_CACHE_LIMIT) chunkCache.clear();
    chunkCache.set(chunk, outputs);
  }
  return outputs;
}

/**
 * Every lexeme in text order with its position, as PostgreSQL's parsetext() gives them to to_tsquery and
 * friends (no per-lexeme limit yet; stop words leave gaps in the positions).
 */
export function parseText(text: string): Token[] {
  const tokens: Token[] = [];
  let position = 0;
  const add = (lexeme: string | null) => {
    position += 1;
    if (lexeme !== null) tokens.push({ lexeme, position: Math.min(position, MAX_POSITION) });
  };
  const chunks = textChunks(text);
  if (chunks === null) {
    for (const lexeme of dictionaryOutputs(text)) add(lexeme);
    return tokens;
  }
  for (const [i, chunk] of chunks.entries()) {
    if (chunk === '') continue;
    for (const lexeme of i === 0 ? dictionaryOutputs(chunk) : chunkOutputs(chunk)) add(lexeme);
  }
  return tokens;
}

/**
 * The (lexeme, position) pairs of to_tsvector('jps_english', text), in text order: like parseText, less the
 * positions a tsvector cannot hold (beyond 255 per lexeme, and repeats once positions reach 16383).
 */
export function analyze(text: string): Token[] {
  const kept = new Map<string, { count: number; last: number }>();
  return parseText(text).filter(({ lexeme, position }) => {
    const seen = kept.get(lexeme);
    if (!seen) {
      kept.set(lexeme, { count: 1, last: position });
      return true;
    }
    if (seen.count >= MAX_POSITIONS_PER_LEXEME || seen.last === MAX_POSITION || seen.last === position) return false;
    seen.count += 1;
    seen.last = position;
    return true;
  });
}

/** The document as to_tsvector represents it: each lexeme with its ascending positions. */
export function tsvector(text: string): Map<string, number[]> {
  const doc = new Map<string, number[]>();
  for (const { lexeme, position } of analyze(text)) {
    const positions = doc.get(lexeme);
    if (positions) positions.push(position);
    else doc.set(lexeme, [position]);
  }
  return doc;
}

/** The distinct lexemes of a text, sorted as a tsvector lists them (byte order, then length). */
export function lexemes(text: string): string[] {
  return [...tsvector(text).keys()].sort(compareLexemes);
}

/** tsCompareString: bytewise (UTF-8) comparison, a shorter string first when one is a prefix of the other. */
export function compareLexemes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
