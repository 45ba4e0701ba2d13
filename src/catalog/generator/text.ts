// Sentence templates compiled once into parts, and filled from fixed values or Zipf-ranked vocabulary draws.

import { ADJECTIVES, ADVERBS, BENEFITS, MASS_NOUNS, NOUNS, STAKEHOLDERS, VERBS } from '../reference/vocabulary.js';
import { canonicalSkill, matchesAnyCase, SKILLS } from '../reference/skills.js';
import { zipf, type Rng, type Weighted } from './random.js';

interface SlotPart {
  name: string;
  /** The name without its number: "adj2" draws like "adj". */
  base: string;
  article: boolean;
  capital: boolean;
}

export type Template = readonly (string | SlotPart)[];

export function compile(template: string): Template {
  const parts: (string | SlotPart)[] = [];
  let last = 0;
  for (const match of template.matchAll(/\{(a:|A:)?([A-Za-z]+?)(\d?)\}/g)) {
    if (match.index > last) parts.push(template.slice(last, match.index));
    const raw = match[2]!;
    const capital = raw[0] !== raw[0]!.toLowerCase() || match[1] === 'A:';
    parts.push({ name: raw.toLowerCase() + (match[3] ?? ''), base: raw.toLowerCase(), article: match[1] !== undefined, capital });
    last = match.index + match[0].length;
  }
  if (last < template.length) parts.push(template.slice(last));
  return parts;
}

export const compileAll = (templates: readonly string[]): Template[] => templates.map(compile);

/**
 * A skill slot's value is written between these two marks inside a description's blocks, so that the text
 * itself says which skills the generator put where (truth for the publisher's extraction); rendering
 * removes them (description.ts).
 */
export const SKILL_OPEN = '\u0002';
export const SKILL_CLOSE = '\u0003';
const SKILL_MARKED = new RegExp(`${SKILL_OPEN}([^${SKILL_CLOSE}]*)${SKILL_CLOSE}`, 'g');

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Any vocabulary skill standing as a word of its own ("C" is not one in "C++", nor "SQL" in "PL/SQL"). */
const SKILL_WORDS = new RegExp(
  `(?<![\\w+#&/-])(?:${[...SKILLS]
    .sort((a, b) => b.length - a.length)
    .map(escapeRegExp)
    .join('|')})(?![\\w+#&/-])`,
  'gi',
);

/** A reference sentence (a duty, a requirement, a title) with the vocabulary skills it names marked. */
export const markSkills = (text: string): string =>
  text.replace(SKILL_WORDS, (word) => {
    const skill = canonicalSkill(word)!;
    return matchesAnyCase(skill) || word === skill ? `${SKILL_OPEN}${word}${SKILL_CLOSE}` : word;
  });

/** Filler words that name no skill: the shared vocabulary writes no skill the truth would not know of. */
const withoutSkills = (words: readonly string[]) => words.filter((w) => markSkills(w) === w);

const markedLists = new WeakMap<readonly string[], readonly string[]>();
/** A reference list with each item's skills marked, kept for as long as the list lives. */
export function markedList(list: readonly string[]): readonly string[] {
  let marked = markedLists.get(list);
  if (marked === undefined) markedLists.set(list, (marked = list.map(markSkills)));
  return marked;
}

/** The skills marked in a text, in order. */
export const markedSkills = (text: string): string[] =>
  text.includes(SKILL_OPEN) ? Array.from(text.matchAll(SKILL_MARKED), (m) => m[1]!) : [];
/** A text without its skill marks. */
export const unmarked = (text: string): string =>
  text.includes(SKILL_OPEN) ? text.replaceAll(SKILL_OPEN, '').replaceAll(SKILL_CLOSE, '') : text;

/** A word list with Zipf weights over its rank. */
export class Ranked {
  private readonly weights: Weighted;

  constructor(
    readonly words: readonly string[],
    exponent = 1,
  ) {
    this.weights = zipf(words.length, exponent, 1.5);
  }

  draw(rng: Rng): string {
    return this.words[this.weights.draw(rng)]!;
  }
}

/** The benefits a description offers, less those that spell a skill ("childcare vouchers"). */
export const PERKS = withoutSkills(BENEFITS);

export const VOCABULARY: Readonly<Record<string, Ranked>> = {
  adj: new Ranked(withoutSkills(ADJECTIVES)),
  nouns: new Ranked(withoutSkills(NOUNS)),
  mass: new Ranked(withoutSkills(MASS_NOUNS)),
  verb: new Ranked(withoutSkills(VERBS)),
  adv: new Ranked(ADVERBS),
  stake: new Ranked(withoutSkills(STAKEHOLDERS)),
  benefit: new Ranked(PERKS, 0.6),
};

/** "a" or "an" for the word that follows, reading acronyms by their letter names. */
export function article(word: string): string {
  if (/^[A-Z]{2,}/.test(word)) return /^[AEFHILMNORSX]/.test(word) ? 'an' : 'a';
  const lower = word.toLowerCase();
  if (/^(hour|honest|heir)/.test(lower)) return 'an';
  if (/^(uni|use|usu|eu|one|once|ubiq)/.test(lower)) return 'a';
  return /^[aeiou]/.test(lower) ? 'an' : 'a';
}

/** The first letter in upper case (after a skill mark, when the text starts with a skill). */
const capitalise = (text: string): string =>
  text.startsWith(SKILL_OPEN) ? SKILL_OPEN + capitalise(text.slice(1)) : text.charAt(0).toUpperCase() + text.slice(1);

function drawValue(base: string, rng: Rng, lists: Readonly<Record<string, readonly string[]>>): string {
  const list = lists[base];
  if (list !== undefined && list.length > 0) return list[rng.int(list.length)]!;
  const ranked = VOCABULARY[base];
  return ranked === undefined ? base : ranked.draw(rng);
}

/** Fills a template: fixed values first, then a draw from `lists` or the shared vocabulary; numbered slots avoid repeating. */
export function fill(
  template: Template,
  rng: Rng,
  fixed: Readonly<Record<string, string>>,
  lists: Readonly<Record<string, readonly string[]>>,
): string {
  let out = '';
  let lastBase = '';
  let lastValue = '';
  for (const part of template) {
    if (typeof part === 'string') {
      out += part;
      continue;
    }
    let value = fixed[part.name] ?? fixed[part.base];
    if (value === undefined) {
      value = drawValue(part.base, rng, lists);
      if (lastBase === part.base && lastValue === value) value = drawValue(part.base, rng, lists);
      lastBase = part.base;
      lastValue = value;
    }
    const shown = part.capital && !part.article ? capitalise(value) : value;
    const marked = part.base === 'skill' ? `${SKILL_OPEN}${shown}${SKILL_CLOSE}` : shown;
    const a = part.article ? article(unmarked(value)) : '';
    if (part.article) out += `${part.capital ? capitalise(a) : a} ${marked}`;
    else out += marked;
  }
  return out;
}
