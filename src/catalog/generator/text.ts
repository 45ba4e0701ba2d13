// Sentence templates compiled once into parts, and filled from fixed values or Zipf-ranked vocabulary draws.

import { ADJECTIVES, ADVERBS, BENEFITS, MASS_NOUNS, NOUNS, STAKEHOLDERS, VERBS } from '../reference/vocabulary.js';
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

export const VOCABULARY: Readonly<Record<string, Ranked>> = {
  adj: new Ranked(ADJECTIVES),
  nouns: new Ranked(NOUNS),
  mass: new Ranked(MASS_NOUNS),
  verb: new Ranked(VERBS),
  adv: new Ranked(ADVERBS),
  stake: new Ranked(STAKEHOLDERS),
  benefit: new Ranked(BENEFITS, 0.6),
};

/** "a" or "an" for the word that follows, reading acronyms by their letter names. */
export function article(word: string): string {
  if (/^[A-Z]{2,}/.test(word)) return /^[AEFHILMNORSX]/.test(word) ? 'an' : 'a';
  const lower = word.toLowerCase();
  if (/^(hour|honest|heir)/.test(lower)) return 'an';
  if (/^(uni|use|usu|eu|one|once|ubiq)/.test(lower)) return 'a';
  return /^[aeiou]/.test(lower) ? 'an' : 'a';
}

const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

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
    if (part.article) value = `${article(value)} ${value}`;
    out += part.capital ? capitalise(value) : value;
  }
  return out;
}
