// The Snowball English (Porter2) stemmer as PostgreSQL's english_stem dictionary applies it (Snowball 2.2.0, the
// version PostgreSQL 18 ships), plus the dictionary around it: lower-casing, the stop list, the 1000-byte cut-off.
// Works on code points; anything outside a-z (accented letters, digits, hyphens) is simply a non-vowel.

import { lowerCode } from './charclass.js';
import { ENGLISH_STOP_WORDS } from './stopwords.js';

function group(letters: string): Set<number> {
  return new Set([...letters].map((ch) => ch.codePointAt(0)!));
}

const V = group('aeiouy');
const V_WXY = group('aeiouywxY');
const AEO = group('aeo');
const VALID_LI = group('cdeghkmnrt');
const Y = 'Y'.codePointAt(0)!;

/** Whole words with a fixed stem (null: the word is its own stem), checked before anything else. */
const EXCEPTIONS1 = new Map<string, string | null>([
  ['skis', 'ski'],
  ['skies', 'sky'],
  ['dying', 'die'],
  ['lying', 'lie'],
  ['tying', 'tie'],
  ['idly', 'idl'],
  ['gently', 'gentl'],
  ['ugly', 'ugli'],
  ['early', 'earli'],
  ['only', 'onli'],
  ['singly', 'singl'],
  ['sky', null],
  ['news', null],
  ['howe', null],
  ['atlas', null],
  ['cosmos', null],
  ['bias', null],
  ['andes', null],
]);
/** Words left alone after step 1a. */
const EXCEPTIONS2 = new Set(['inning', 'outing', 'canning', 'herring', 'earring', 'proceed', 'exceed', 'succeed']);
const R1_PREFIXES = ['gener', 'commun', 'arsen'];

/** Step 1b: 1 = "eed" endings (to "ee" in R1), 2 = "ed"/"ing" endings (removed after a vowel); longest first. */
const STEP1B: [string, number][] = [
  ['eedly', 1],
  ['ingly', 2],
  ['edly', 2],
  ['eed', 1],
  ['ing', 2],
  ['ed', 2],
];
/** Steps 2 to 4: suffix → replacement, matched longest first. */
const STEP2 = sortLongestFirst([
  ['tional', 'tion'],
  ['enci', 'ence'],
  ['anci', 'ance'],
  ['abli', 'able'],
  ['entli', 'ent'],
  ['izer', 'ize'],
  ['ization', 'ize'],
  ['ational', 'ate'],
  ['ation', 'ate'],
  ['ator', 'ate'],
  ['alism', 'al'],
  ['aliti', 'al'],
  ['alli', 'al'],
  ['fulness', 'ful'],
  ['ousli', 'ous'],
  ['ousness', 'ous'],
  ['iveness', 'ive'],
  ['iviti', 'ive'],
  ['biliti', 'ble'],
  ['bli', 'ble'],
  ['ogi', 'og'],
  ['fulli', 'ful'],
  ['lessli', 'less'],
  ['li', ''],
]);
const STEP3 = sortLongestFirst([
  ['tional', 'tion'],
  ['ational', 'ate'],
  ['alize', 'al'],
  ['icate', 'ic'],
  ['iciti', 'ic'],
  ['ical', 'ic'],
  ['ful', ''],
  ['ness', ''],
  ['ative', ''],
]);
const STEP4 = sortLongestFirst(
  ['al', 'ance', 'ence', 'er', 'ic', 'able', 'ible', 'ant', 'ement', 'ment', 'ent', 'ism', 'ate', 'iti', 'ous', 'ive', 'ize', 'ion'].map(
    (s): [string, string] => [s, ''],
  ),
);

function sortLongestFirst(table: [string, string][]): [string, string][] {
  return [...table].sort((a, b) => b[0].length - a[0].length);
}

/** The word being stemmed: code points, and the regions R1 and R2 as start indexes. */
class Word {
  cps: number[];
  r1 = 0;
  r2 = 0;
  constructor(text: string) {
    this.cps = [...text].map((ch) => ch.codePointAt(0)!);
  }
  get length(): number {
    return this.cps.length;
  }
  at(i: number): number {
    return this.cps[i] ?? -1;
  }
  isV(i: number): boolean {
    return V.has(this.at(i));
  }
  endsWith(suffix: string): boolean {
    if (suffix.length > this.cps.length) return false;
    const from = this.cps.length - suffix.length;
    for (let i = 0; i < suffix.length; i += 1) if (this.cps[from + i] !== suffix.charCodeAt(i)) return false;
    return true;
  }
  /** The longest suffix of the table that the word ends with. */
  longest<T>(table: [string, T][]): [string, T] | undefined {
    return table.find(([suffix]) => this.endsWith(suffix));
  }
  replaceEnd(length: number, by: string): void {
    this.cps.splice(this.cps.length - length, length, ...[...by].map((ch) => ch.codePointAt(0)!));
  }
  /** Whether a vowel occurs before index `end`. */
  hasVowelBefore(end: number): boolean {
    for (let i = 0; i < end; i += 1) if (this.isV(i)) return true;
    return false;
  }
  toString(): string {
    return String.fromCodePoint(...this.cps);
  }
}

/** The index just past the first non-vowel that follows a vowel, searching from `from`; the length if none. */
function regionAfter(w: Word, from: number): number {
  let i = from;
  while (i < w.length && !w.isV(i)) i += 1;
  while (i < w.length && w.isV(i)) i += 1;
  return i < w.length ? i + 1 : w.length;
}

function markRegions(w: Word): void {
  const text = w.toString();
  const prefix = R1_PREFIXES.find((p) => text.startsWith(p));
  w.r1 = prefix ? prefix.length : regionAfter(w, 0);
  w.r2 = w.r1 < w.length ? regionAfter(w, w.r1) : w.length;
}

/** A short syllable ends at `end`: non-vowel, vowel, non-vowel other than w, x, Y; or vowel, non-vowel at the start. */
function shortSyllableBefore(w: Word, end: number): boolean {
  const [a, b, c] = [w.at(end - 3), w.at(end - 2), w.at(end - 1)];
  if (end >= 3 && !V.has(a) && V.has(b) && !V_WXY.has(c)) return true;
  return end === 2 && V.has(b) && !V.has(c);
}

function prelude(w: Word): boolean {
  if (w.at(0) === 0x27) w.cps.shift();
  let yFound = false;
  if (w.at(0) === 0x79) {
    w.cps[0] = Y;
    yFound = true;
  }
  for (let i = 1; i < w.length; i += 1) {
    if (w.at(i) === 0x79 && w.isV(i - 1)) {
      w.cps[i] = Y;
      yFound = true;
    }
  }
  return yFound;
}

function step1a(w: Word): void {
  const apostrophe = w.longest<null>([
    ["'s'", null],
    ["'s", null],
    ["'", null],
  ]);
  if (apostrophe) w.replaceEnd(apostrophe[0].length, '');
  if (w.endsWith('sses')) w.replaceEnd(4, 'ss');
  else if (w.endsWith('ied') || w.endsWith('ies')) w.replaceEnd(3, w.length > 4 ? 'i' : 'ie');
  else if (w.endsWith('ss') || w.endsWith('us')) return;
  else if (w.endsWith('s') && w.hasVowelBefore(w.length - 2)) w.replaceEnd(1, '');
}

function step1b(w: Word): void {
  const match = w.longest(STEP1B);
  if (!match) return;
  const [suffix, kind] = match;
  const start = w.length - suffix.length;
  if (kind === 1) {
    if (start >= w.r1) w.replaceEnd(suffix.length, 'ee');
    return;
  }
  if (!w.hasVowelBefore(start)) return;
  w.replaceEnd(suffix.length, '');
  if (w.endsWith('at') || w.endsWith('bl') || w.endsWith('iz')) {
    w.replaceEnd(0, 'e');
  } else if (['bb', 'dd', 'ff', 'gg', 'mm', 'nn', 'pp', 'rr', 'tt'].some((d) => w.endsWith(d))) {
    if (!(w.length === 3 && AEO.has(w.at(0)))) w.cps.pop();
  } else if (w.length === w.r1 && shortSyllableBefore(w, w.length)) {
    w.replaceEnd(0, 'e');
  }
}

function step1c(w: Word): void {
  const last = w.at(w.length - 1);
  if ((last === 0x79 || last === Y) && w.length > 2 && !w.isV(w.length - 2)) w.cps[w.length - 1] = 0x69;
}

function step2(w: Word): void {
  const match = w.longest(STEP2);
  if (!match || w.length - match[0].length < w.r1) return;
  const [suffix, by] = match;
  const before = w.at(w.length - suffix.length - 1);
  if (suffix === 'ogi' && before !== 0x6c) return;
  if (suffix === 'li' && !VALID_LI.has(before)) return;
  w.replaceEnd(suffix.length, by);
}

function step3(w: Word): void {
  const match = w.longest(STEP3);
  if (!match || w.length - match[0].length < w.r1) return;
  if (match[0] === 'ative' && w.length - 5 < w.r2) return;
  w.replaceEnd(match[0].length, match[1]);
}

function step4(w: Word): void {
  const match = w.longest(STEP4);
  if (!match || w.length - match[0].length < w.r2) return;
  if (match[0] === 'ion') {
    const before = w.at(w.length - 4);
    if (before !== 0x73 && before !== 0x74) return;
  }
  w.replaceEnd(match[0].length, '');
}

function step5(w: Word): void {
  const end = w.length - 1;
  if (w.at(end) === 0x65) {
    if (end >= w.r2 || (end >= w.r1 && !shortSyllableBefore(w, end))) w.cps.pop();
  } else if (w.at(end) === 0x6c && end >= w.r2 && w.at(end - 1) === 0x6c) {
    w.cps.pop();
  }
}

/** The Porter2 stem of a lower-case word. */
export function porter2(word: string): string {
  if (EXCEPTIONS1.has(word)) return EXCEPTIONS1.get(word) ?? word;
  const w = new Word(word);
  if (w.length < 3) return word;
  const yFound = prelude(w);
  markRegions(w);
  step1a(w);
  if (!EXCEPTIONS2.has(w.toString())) {
    step1b(w);
    step1c(w);
    step2(w);
    step3(w);
    step4(w);
    step5(w);
  }
  if (yFound) w.cps = w.cps.map((c) => (c === Y ? 0x79 : c));
  return w.toString();
}

/** lower() as PostgreSQL's str_tolower() does it in a C.UTF-8 database: one code point at a time. */
export function pgLower(text: string): string {
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(text)) return text.toLowerCase();
  let out = '';
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    const l = lowerCode(c);
    out += l === c ? ch : String.fromCodePoint(l);
  }
  return out;
}

/** Recent words and their lexemes: texts repeat their vocabulary, so most words are stemmed once. */
const cache = new Map<string, string | null>();
const CACHE_SIZE = 50_000;

/** The english_stem dictionary: the lexeme of a word, or null for a stop word (or an empty word). */
export function englishStem(word: string): string | null {
  let lexeme = cache.get(word);
  if (lexeme !== undefined) return lexeme;
  const lower = pgLower(word);
  // Like dict_snowball.c: longer inputs (in UTF-8 bytes) are surely not words; kept lower-cased, unstemmed.
  if (word.length > 333 && Buffer.byteLength(word, 'utf8') > 1000) return lower;
  lexeme = lower === '' || ENGLISH_STOP_WORDS.has(lower) ? null : porter2(lower) || lower;
  if (cache.size >= CACHE_SIZE) cache.clear();
  cache.set(word, lexeme);
  return lexeme;
}
