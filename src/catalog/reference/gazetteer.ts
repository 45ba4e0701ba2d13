// The gazetteer: every known city, subdivision and country, indexed by folded name for constant-time lookups.

import { US_METROS, US_SMALLER_METROS } from './geo-us-metros.js';
import { US_OTHER_CITIES, US_STATES } from './geo-us.js';
import { COUNTRIES, SUBDIVISION_LIST, WORLD_CITIES, type CountryRef } from './geo-world.js';

export interface Msa {
  cbsa_code: string;
  name: string;
}

export interface GazetteerCity {
  name: string;
  state: string;
  country: string;
  msa: Msa | null;
  /** Sampling weight (roughly population in millions). */
  weight: number;
  /** Pay level relative to the country average. */
  cost: number;
  aliases: readonly string[];
  /** The city's name in the country's own language, when job boards there write it differently. */
  local?: string;
}

export interface Subdivision {
  country: string;
  code: string;
  name: string;
}

/** Lowercase, accents folded, periods and apostrophes dropped, hyphens as spaces, "saint"/"ft"/"mt" spelled one way. */
export function foldKey(text: string): string {
  if (/^[a-z]+( [a-z]+)*$/.test(text) && !/\b(saint|ste|ft|mt)\b/.test(text)) return text;
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/[.'’`]/g, '')
    .replace(/[-_–—]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/\b(saint|ste)\b/g, 'st')
    .replace(/\bft\b/g, 'fort')
    .replace(/\bmt\b/g, 'mount');
}

function usCities(): GazetteerCity[] {
  const cities: GazetteerCity[] = [];
  for (const metro of US_METROS) {
    const msa = { cbsa_code: metro.cbsa, name: metro.name };
    metro.cities.forEach((pair, i) => {
      const share = i === 0 ? 0.6 : 0.4 / (metro.cities.length - 1);
      cities.push({ name: pair.slice(0, -3), state: pair.slice(-2), country: 'US', msa, weight: metro.population * share, cost: metro.cost, aliases: US_ALIASES[pair] ?? [] });
    });
  }
  const smaller = new Map(US_SMALLER_METROS.flatMap((metro) => metro.cities.map((pair) => [pair, { cbsa_code: metro.cbsa, name: metro.name }] as const)));
  for (const pair of US_OTHER_CITIES) {
    cities.push({ name: pair.slice(0, -3), state: pair.slice(-2), country: 'US', msa: smaller.get(pair) ?? null, weight: 0.12, cost: 0.85, aliases: [] });
    smaller.delete(pair);
  }
  if (smaller.size > 0) throw new Error(`US_SMALLER_METROS names cities missing from US_OTHER_CITIES: ${[...smaller.keys()].join(', ')}`);
  return cities;
}

const US_ALIASES: Readonly<Record<string, string[]>> = {
  'New York NY': ['New York City', 'NYC', 'Manhattan'],
  'Boise ID': ['Boise City'],
  'Washington DC': ['Washington D.C.'],
  'Ventura CA': ['San Buenaventura'],
};

const WORLD_COST: Readonly<Record<string, number>> = { London: 1.2, Zürich: 1.1, Paris: 1.1, Munich: 1.1, Dublin: 1.1, Sydney: 1.05, Toronto: 1.05, Bengaluru: 1.15, Mumbai: 1.1 };

function worldCities(): GazetteerCity[] {
  return WORLD_CITIES.map((c) => ({
    name: c.name,
    state: c.state,
    country: c.country,
    msa: null,
    weight: c.weight,
    cost: WORLD_COST[c.name] ?? 1,
    aliases: c.local ? [...c.aliases, c.local] : c.aliases,
    ...(c.local ? { local: c.local } : {}),
  }));
}

export const CITIES: readonly GazetteerCity[] = [...usCities(), ...worldCities()];

function indexBy<T>(items: readonly T[], keys: (item: T) => string[]): Map<string, T[]> {
  const index = new Map<string, T[]>();
  for (const item of items) {
    for (const key of new Set(keys(item).map(foldKey))) {
      const list = index.get(key);
      if (list) list.push(item);
      else index.set(key, [item]);
    }
  }
  return index;
}

const CITY_INDEX = indexBy(
  [...CITIES].sort((a, b) => b.weight - a.weight),
  (c) => [c.name, ...c.aliases],
);

export const SUBDIVISIONS: readonly Subdivision[] = [
  ...Object.entries(US_STATES).map(([code, name]) => ({ country: 'US', code, name })),
  ...SUBDIVISION_LIST.map(({ country, code, name }) => ({ country, code, name })),
];

const SUBDIVISION_ALIASES = new Map(SUBDIVISION_LIST.map((s) => [`${s.country}-${s.code}`, s.aliases]));
const SUBDIVISION_INDEX = indexBy(SUBDIVISIONS, (s) => [s.code, s.name, ...(SUBDIVISION_ALIASES.get(`${s.country}-${s.code}`) ?? [])]);
const SUBDIVISION_NAMES = new Map(SUBDIVISIONS.map((s) => [`${s.country}-${s.code}`, s.name]));

const COUNTRY_BY_NAME = new Map<string, CountryRef>();
const COUNTRY_BY_ISO = new Map<string, CountryRef>();
for (const country of COUNTRIES) {
  for (const name of [country.name, ...country.aliases]) COUNTRY_BY_NAME.set(foldKey(name), country);
  COUNTRY_BY_ISO.set(country.code.toLowerCase(), country);
}
COUNTRY_BY_NAME.set('us', COUNTRY_BY_ISO.get('us')!);
COUNTRY_BY_ISO.set('uk', COUNTRY_BY_ISO.get('gb')!);

/** Cities with this folded name, most populous first; narrowed by country and subdivision when given. */
export function citiesNamed(key: string, country?: string, state?: string): GazetteerCity[] {
  const list = CITY_INDEX.get(key);
  if (!list) return [];
  return list.filter((c) => (!country || c.country === country) && (!state || c.state === state));
}

/** The city a bare name means: the most populous of that name. */
export function defaultCity(name: string): GazetteerCity | undefined {
  return CITY_INDEX.get(foldKey(name))?.[0];
}

/** Subdivisions with this folded code or name, US states first. */
export function subdivisionsNamed(key: string, country?: string): Subdivision[] {
  return (SUBDIVISION_INDEX.get(key) ?? []).filter((s) => !country || s.country === country);
}

export function subdivisionName(country: string, code: string): string | undefined {
  return SUBDIVISION_NAMES.get(`${country}-${code}`);
}

/** A country by its full name or a common alias ("USA", "UK", "Deutschland"); not by a bare ISO code. */
export function countryByName(key: string): CountryRef | undefined {
  return COUNTRY_BY_NAME.get(key);
}

/** A country by its ISO 3166-1 alpha-2 code (and "UK"). */
export function countryByIso(key: string): CountryRef | undefined {
  return COUNTRY_BY_ISO.get(key);
}

export function countryRef(code: string): CountryRef {
  const country = COUNTRY_BY_ISO.get(code.toLowerCase());
  if (!country) throw new Error(`unknown country ${code}`);
  return country;
}

/** True when a folded key names a US state by its full name. */
export function isUsStateName(key: string): boolean {
  return subdivisionsNamed(key, 'US').some((s) => foldKey(s.name) === key);
}
