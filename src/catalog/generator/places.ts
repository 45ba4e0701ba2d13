// Where an opening is: its work arrangement and cities (the truth), and the raw strings each copy writes for them.

import {
  countryByName,
  countryRef,
  defaultCity,
  foldKey,
  isUsStateName,
  subdivisionName,
  type GazetteerCity,
} from '../reference/gazetteer.js';
import { SECTORS } from '../reference/sectors.js';
import type { SourceRef } from '../reference/sources.js';
import type { ParsedLocation } from '../normalise/location.js';
import { drawCity, type Company } from './companies.js';
import { STREAM } from './options.js';
import { pickWeighted, Rng } from './random.js';

export type Arrangement = 'remote' | 'hybrid' | 'in_person' | null;

export interface Place {
  arrangement: Arrangement;
  /** Country the opening is in (for remote openings, the country it hires in). */
  country: string;
  cities: GazetteerCity[];
  /** Whether a "Remote" location string is listed. */
  remoteListed: boolean;
}

export interface RawLocation {
  raw: string;
  truth: ParsedLocation;
}

const ABROAD = ['IN', 'GB', 'CA', 'DE'];

export function placeOf(seed: number, index: number, company: Company, sector: string): Place {
  const rng = new Rng(seed, STREAM.place, index);
  const remoteShare = SECTORS[sector]?.remote ?? 0.1;
  const u = rng.float();
  const arrangement: Arrangement =
    u < 0.25
      ? null
      : u < 0.25 + Math.min(0.55, remoteShare * 1.1)
        ? 'remote'
        : rng.chance(remoteShare > 0.1 ? 0.62 : 0.25)
          ? 'hybrid'
          : 'in_person';
  const abroad = company.country === 'US' && !company.chain && company.weight > 50 && rng.chance(0.08);
  const home = abroad ? ABROAD[rng.int(ABROAD.length)]! : company.country;
  const cities: GazetteerCity[] = [];
  const count =
    arrangement === 'remote'
      ? rng.chance(0.2)
        ? 1
        : 0
      : pickWeighted(rng, [
          [1, 85],
          [2, 9],
          [3, 3],
          [0, 3],
        ] as const);
  for (let k = 0; k < count * 3 && cities.length < count; k += 1) {
    const city =
      abroad || company.chain || rng.chance(0.15) ? drawCity(rng, home) : rng.chance(0.6) ? company.hq : rng.pick(company.offices);
    if (!cities.includes(city)) cities.push(city);
  }
  const country = cities[0]?.country ?? home;
  return { arrangement, country, cities, remoteListed: arrangement === 'remote' && (cities.length === 0 || rng.chance(0.7)) };
}

const truthOf = (city: GazetteerCity): ParsedLocation => ({
  city: city.name,
  state: city.state,
  country: city.country,
  msa: city.msa,
  remote: false,
});

/** Whether the bare city name reads back as this city: it is not a country or US state name and is the most populous of its name. */
function bareIsSafe(city: GazetteerCity): boolean {
  const key = foldKey(city.name);
  return defaultCity(city.name) === city && !countryByName(key) && !(isUsStateName(key) && key !== 'new york');
}

const US_STYLES: [number, number][] = [
  [0, 45],
  [1, 12],
  [2, 10],
  [3, 8],
  [4, 6],
  [5, 6],
  [6, 5],
  [7, 3],
  [8, 2],
  [9, 3],
];
const WORLD_STYLES: [number, number][] = [
  [0, 25],
  [1, 20],
  [2, 25],
  [3, 15],
  [4, 10],
  [5, 5],
];
const CODE_COUNTRIES = ['CA', 'AU', 'IN', 'BR'];

function formatUs(city: GazetteerCity, style: number, hybrid: boolean): string {
  const state = subdivisionName('US', city.state)!;
  switch (style) {
    case 1:
      return `${city.name}, ${state}`;
    case 2:
      return `${city.name}, ${city.state}, US`;
    case 3:
      return `${city.name}, ${state}, United States`;
    case 4:
      return `${city.name}, ${city.state}, USA`;
    case 5:
      return `US-${city.state}-${city.name}`;
    case 6:
      return `${city.name}, ${city.state}, United States`;
    case 7:
      return `${city.name.toUpperCase()}, ${city.state}`;
    case 8:
      return bareIsSafe(city) ? city.name : `${city.name}, ${city.state}`;
    case 9:
      return hybrid ? `${city.name}, ${city.state} (Hybrid)` : `${city.name}, ${city.state}`;
    default:
      return `${city.name}, ${city.state}`;
  }
}

function formatWorld(city: GazetteerCity, style: number, local: boolean): string {
  const country = countryRef(city.country);
  const region = subdivisionName(city.country, city.state)!;
  if (local && city.country === 'DE') return `${city.local ?? city.name}, ${country.aliases[0] ?? country.name}`;
  switch (style) {
    case 0:
      return CODE_COUNTRIES.includes(city.country) ? `${city.name}, ${city.state}` : `${city.name}, ${country.name}`;
    case 1:
      return `${city.name}, ${region}, ${country.name}`;
    case 3:
      return `${city.name}, ${city.country === 'GB' ? 'UK' : city.country}`;
    case 4:
      return bareIsSafe(city) ? city.name : `${city.name}, ${country.name}`;
    case 5:
      return `${city.local ?? city.name}, ${region}, ${city.country}`;
    default:
      return `${city.name}, ${country.name}`;
  }
}

const REMOTE_FORMS = [
  'Remote - {country}',
  'Remote, {code}',
  '{country} (Remote)',
  '{code} - Remote',
  'Remote ({country})',
  'Remote',
  'Anywhere',
  'REMOTE - {code}',
];

function formatRemote(rng: Rng, country: string): RawLocation {
  const form = pickWeighted(
    rng,
    REMOTE_FORMS.map((f, i): [string, number] => [f, i === 0 ? 30 : i < 5 ? 12 : 6]),
  );
  const ref = countryRef(country);
  const name = country === 'US' && rng.chance(0.3) ? 'USA' : ref.name;
  const code = country === 'US' ? 'US' : country === 'GB' ? 'UK' : name;
  const raw = form.replace('{country}', name).replace('{code}', code);
  const named = form.includes('{');
  return { raw, truth: { city: null, state: null, country: named ? country : null, msa: null, remote: true } };
}

/** The location strings one copy writes: its own format per posting; `shift` forces a different format than usual. */
export function formatPlace(rng: Rng, place: Place, source: SourceRef, shift = 0): RawLocation[] {
  const out: RawLocation[] = [];
  if (place.remoteListed) out.push(formatRemote(rng, place.country));
  const caps = source.caps > 0 && rng.chance(source.caps);
  const usStyle = caps ? 7 : (pickWeighted(rng, US_STYLES) + shift) % 10;
  const worldStyle = (pickWeighted(rng, WORLD_STYLES) + shift) % 6;
  const local = source.name === 'bundesagentur';
  for (const city of place.cities) {
    const raw = city.country === 'US' ? formatUs(city, usStyle, place.arrangement === 'hybrid') : formatWorld(city, worldStyle, local);
    out.push({ raw, truth: truthOf(city) });
  }
  return out.slice(0, 3);
}
