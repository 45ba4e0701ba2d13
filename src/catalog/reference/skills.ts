// The skills vocabulary: the tools, techniques, certifications and specialities the occupations ask for
// (occupations-office.ts and occupations-field.ts), less the common words that name a field of work or a
// general quality rather than a skill a candidate can claim ("safety", "communication", "operations").
// The publisher extracts these from descriptions; the generator marks them as its truth.

import { OCCUPATIONS } from './occupations.js';

/** Occupation skills read as general words: never extracted, never truth. */
const COMMON_WORDS = new Set(
  `accessibility accuracy adaptability analytics assembly audit audits balancing billing brand budgets budgeting certification
  cleaning coaching collections communication compliance conditions confidentiality contracts discovery documentation editing
  exercises facilities filing finishing flexibility forecasting forms grading hiring inspection inspections interpretation
  interviewing inventory investigations launches layout leadership lifting lifts math messaging multitasking navigation
  negotiation networking on-call onboarding operations ordering packaging packing partnerships patience positioning pricing
  procurement proposals publications purchasing reading receiving regression reporting research reservations returns safety
  sampling scheduling seating simulation sorting sourcing staffing stocking teaching teamwork title tours training
  transportation typing writing`.split(/\s+/),
);

/** Every skill of the vocabulary, as the occupations spell it. */
export const SKILLS: readonly string[] = [...new Set(OCCUPATIONS.flatMap((o) => o.skills))].filter((s) => !COMMON_WORDS.has(s)).sort();

const CANONICAL = new Map(SKILLS.map((s) => [s.toLowerCase(), s]));

/** A vocabulary skill as the vocabulary spells it, from any casing; undefined when it is not one. */
export const canonicalSkill = (name: string): string | undefined => CANONICAL.get(name.toLowerCase());

/** A skill whose every letter is lower case matches in any case ("Forklift" at the start of a line); others match exactly ("Go", "R"). */
export const matchesAnyCase = (skill: string): boolean => skill === skill.toLowerCase();
