// Unique employer names from word parts, their legal suffixes, slugs and domains, and the spellings copies use.

import { LEGAL_SUFFIXES, NAME_FIRST, NAME_SECOND, SUFFIX_VARIANTS, SURNAME_ENDINGS, SURNAMES } from '../reference/company-names.js';
import { foldKey, type GazetteerCity } from '../reference/gazetteer.js';
import { US_STATES } from '../reference/geo-us.js';
import type { IndustryRef } from '../reference/industries.js';
import { pickWeighted, type Rng } from './random.js';

export interface EmployerName {
  base: string;
  suffix: string;
  /** "Northwind Logistics, Inc." or "Northwind Logistics LLC". */
  legal: string;
  slug: string;
}

const AGENCIES = [
  'Transportation',
  'Health',
  'Revenue',
  'Corrections',
  'Labor',
  'Natural Resources',
  'Human Services',
  'Public Safety',
  'Environmental Quality',
  'Motor Vehicles',
];
const LOCAL_BODIES = [
  'City of {city}',
  '{city} Housing Authority',
  '{city} Water Department',
  '{city} Public Library',
  '{city} Parks and Recreation',
  '{city} Regional Transit Authority',
  '{city} Police Department',
  '{city} Fire Department',
];
const FOREIGN_BODIES: Readonly<Record<string, readonly string[]>> = {
  GB: ['{city} City Council', '{city} Borough Council', 'NHS {city} Trust'],
  DE: ['Stadt {city}', 'Stadtwerke {city}', 'Landratsamt {city}'],
  CA: ['City of {city}', '{city} Transit', 'Region of {city}'],
};

function governmentName(rng: Rng, hq: GazetteerCity): string {
  if (hq.country === 'US' && rng.chance(0.3)) return `${US_STATES[hq.state] ?? hq.state} Department of ${rng.pick(AGENCIES)}`;
  const templates = hq.country === 'US' ? LOCAL_BODIES : (FOREIGN_BODIES[hq.country] ?? ['City of {city}']);
  return rng.pick(templates).replace('{city}', hq.name);
}

function commercialName(rng: Rng, industry: IndustryRef): string {
  const noun = rng.pick(industry.nouns);
  const style = rng.float();
  if (style < 0.55) return `${rng.pick(NAME_FIRST)} ${rng.chance(0.35) ? `${rng.pick(NAME_SECOND)} ` : ''}${noun}`;
  if (style < 0.75) return `${rng.pick(NAME_FIRST)} ${rng.pick(NAME_SECOND)} ${noun}`;
  if (style < 0.9) return `${rng.pick(SURNAMES)} ${noun}`;
  return `${rng.pick(SURNAMES)} ${rng.pick(SURNAME_ENDINGS)}${rng.chance(0.5) ? ` ${noun}` : ''}`;
}

export function slugOf(text: string): string {
  return foldKey(text.replace(/&/g, ' and '))
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** A name not yet in `taken` (folded), built from word parts; a place is added when the parts run out. */
export function employerName(rng: Rng, industry: IndustryRef, hq: GazetteerCity, taken: Set<string>): EmployerName {
  let base = '';
  for (let attempt = 0; attempt < 40; attempt += 1) {
    base = industry.government ? governmentName(rng, hq) : commercialName(rng, industry);
    if (!taken.has(base.toLowerCase())) break;
  }
  for (let n = 2; taken.has(base.toLowerCase()); n += 1)
    base = `${base.replace(/ of [^,]+$| \d+$/, '')} of ${n === 2 ? hq.name : `${hq.name} ${n}`}`;
  taken.add(base.toLowerCase());
  const suffix = industry.noSuffix ? '' : pickWeighted(rng, LEGAL_SUFFIXES[hq.country] ?? LEGAL_SUFFIXES.US!);
  const comma = suffix !== '' && ['US', 'CA'].includes(hq.country) && /^(Inc|LLC|Corp|Ltd)/.test(suffix) && rng.chance(0.5);
  const legal = suffix === '' ? base : `${base}${comma ? ',' : ''} ${suffix}`;
  return { base, suffix, legal, slug: slugOf(base) };
}

const TLD: Readonly<Record<string, string>> = {
  US: 'com',
  CA: 'ca',
  GB: 'co.uk',
  DE: 'de',
  IN: 'co.in',
  AU: 'com.au',
  FR: 'fr',
  NL: 'nl',
  IE: 'ie',
  BR: 'com.br',
  CH: 'ch',
};

export function domainOf(rng: Rng, name: EmployerName, country: string, government: boolean): string {
  const stem = name.slug.replace(/-/g, rng.chance(0.7) ? '' : '-');
  if (government && country === 'US') return `${stem}.gov`;
  const tld = rng.chance(0.75) ? (TLD[country] ?? 'com') : 'com';
  return `${stem}.${tld}`;
}

/** How one copy writes the employer: legal name, base name, without punctuation, capitals, or a swapped suffix. */
export function employerSpelling(name: EmployerName, style: number, variant: number): string {
  if (name.suffix === '' || style < 0.45) return style > 0.97 ? name.base.toUpperCase() : name.base;
  if (style < 0.8) return name.legal;
  const swaps = SUFFIX_VARIANTS[name.suffix];
  if (style < 0.9 && swaps) return `${name.base} ${swaps[variant % swaps.length]}`;
  if (style < 0.96) return `${name.base} ${name.suffix.replace(/\./g, '')}`;
  return `${name.base} ${name.suffix.replace(/\./g, '')}`.toUpperCase();
}
