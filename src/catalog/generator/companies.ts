// The employers: Zipf-sized, named, placed, linked or not to the registry, each with its ATS and mix of occupations.

import { CITIES, type GazetteerCity } from '../reference/gazetteer.js';
import { COUNTRIES } from '../reference/geo-world.js';
import { INDUSTRIES, type IndustryRef } from '../reference/industries.js';
import { OCCUPATIONS_BY_SECTOR } from '../reference/occupations.js';
import { sourceIndex } from '../reference/sources.js';
import { RATES, STREAM, type GenerateOptions } from './options.js';
import { domainOf, employerName, type EmployerName } from './employer-names.js';
import { pickWeighted, Rng, uuid, Weighted } from './random.js';
import { releaseDays } from './calendar.js';

export interface Company {
  index: number;
  id: string;
  name: EmployerName;
  domain: string | null;
  country: string;
  industry: IndustryRef;
  hq: GazetteerCity;
  /** Offices openings are placed in; chains place openings anywhere in their country instead. */
  offices: readonly GazetteerCity[];
  chain: boolean;
  registered: boolean;
  /** Registry-only record of a dissolved company: listed inactive, never hiring. */
  dissolved: boolean;
  /** First day the company exists (1, or the release day that added it). */
  since: number;
  /** Relative share of openings. */
  weight: number;
  employeeRange: string;
  ats: number;
  careersPage: boolean;
  /** Share of its openings whose titles carry the requisition number, and how. */
  reqStyle: number;
  occupations: readonly number[];
  occupationWeights: Weighted;
  seed: number;
}

export interface Companies {
  list: Company[];
  /** Start of each company's block in a flat array with one cell per (company, occupation of its mix). */
  mixOffset: Int32Array;
  /** Companies that exist from day 1 and hire, sampled by weight. */
  base: Weighted;
  baseCount: number;
  /** Companies added by later registry releases, by index. */
  added: Company[];
}

const RANGES = ['1-10', '11-50', '51-200', '201-500', '501-1000', '1001-5000', '5001-10000', '10001+'];
const RANGE_FLOORS = [0, 2.5, 8, 25, 80, 250, 800, 3000];

function employeeRange(rng: Rng, expectedOpenings: number): string {
  let bucket = 0;
  while (bucket + 1 < RANGE_FLOORS.length && expectedOpenings >= RANGE_FLOORS[bucket + 1]!) bucket += 1;
  if (rng.chance(0.2)) bucket = Math.min(RANGES.length - 1, Math.max(0, bucket + (rng.chance(0.5) ? 1 : -1)));
  return RANGES[bucket]!;
}

const INDUSTRY_PICK = new Weighted(INDUSTRIES.map((i) => i.share));
const FOREIGN = COUNTRIES.filter((c) => c.code !== 'US');
const FOREIGN_PICK = new Weighted(FOREIGN.map((c) => c.weight));
const CITY_PICK = new Map<string, { cities: GazetteerCity[]; weights: Weighted }>();
for (const country of COUNTRIES) {
  const cities = CITIES.filter((c) => c.country === country.code);
  CITY_PICK.set(country.code, { cities, weights: new Weighted(cities.map((c) => c.weight)) });
}

/** A city of the country, drawn by population. */
export function drawCity(rng: Rng, country: string): GazetteerCity {
  const pick = CITY_PICK.get(country)!;
  return pick.cities[pick.weights.draw(rng)]!;
}

function drawCountry(rng: Rng): string {
  return rng.chance(0.83) ? 'US' : FOREIGN[FOREIGN_PICK.draw(rng)]!.code;
}

function chooseAts(rng: Rng, expected: number, industry: IndustryRef): number {
  const tech = industry.name.includes('Software') || industry.name.includes('IT ');
  const pairs: [string, number][] =
    expected > 250
      ? [
          ['workday', 5],
          ['successfactors', 2],
          ['taleo', 1.5],
          ['icims', 2],
          ['greenhouse', 1],
          ['smartrecruiters', 1],
        ]
      : tech
        ? [
            ['greenhouse', 5],
            ['lever', 3],
            ['ashby', 2.5],
            ['smartrecruiters', 0.5],
            ['workday', 0.5],
          ]
        : [
            ['icims', 2],
            ['jobvite', 1.5],
            ['bamboohr', 2.5],
            ['greenhouse', 1.5],
            ['lever', 1],
            ['smartrecruiters', 1],
            ['workday', 1],
            ['taleo', 0.5],
          ];
  return sourceIndex(pickWeighted(rng, pairs));
}

/** The occupations a company hires for, drawn from its industry's sectors, with Zipf weights (the first most common). */
function occupationMix(rng: Rng, industry: IndustryRef, expected: number): { occupations: number[]; weights: Weighted } {
  const sectors = Object.entries(industry.mix);
  const count = Math.max(2, Math.min(40, Math.round(2 + Math.log2(expected + 1) * 2.5)));
  const occupations: number[] = [];
  for (let tries = 0; occupations.length < count && tries < count * 6; tries += 1) {
    const sector = pickWeighted(rng, sectors);
    const options = OCCUPATIONS_BY_SECTOR.get(sector);
    if (!options) continue;
    const occupation = options[Math.min(options.length - 1, Math.floor(Math.pow(rng.float(), 1.6) * options.length))]!;
    if (!occupations.includes(occupation)) occupations.push(occupation);
  }
  return { occupations, weights: new Weighted(occupations.map((_, i) => 1 / (i + 1))) };
}

function makeCompany(
  options: GenerateOptions,
  index: number,
  expected: number,
  since: number,
  taken: Set<string>,
  registered: boolean,
  dissolved: boolean,
): Company {
  const rng = new Rng(options.seed, STREAM.company, index);
  const industry = INDUSTRIES[INDUSTRY_PICK.draw(rng)]!;
  const country = drawCountry(rng);
  const hq = drawCity(rng, country);
  const name = employerName(rng, industry, hq, taken);
  const domain = rng.chance(expected > 5 ? 0.97 : 0.88) ? domainOf(rng, name, country, industry.government === true) : null;
  const chain = rng.chance(industry.chain * (expected > 200 ? 1 : expected > 30 ? 0.6 : 0.15));
  const officeCount = chain ? 0 : Math.min(6, Math.floor(Math.log10(expected + 1) * 1.5 + rng.float()));
  const offices = [hq];
  for (let k = 0; k < officeCount; k += 1) {
    const city = drawCity(rng, rng.chance(0.85) ? country : drawCountry(rng));
    if (!offices.includes(city)) offices.push(city);
  }
  const mix = occupationMix(rng, industry, expected);
  return {
    index,
    id: uuid(rng),
    name,
    domain,
    country,
    industry,
    hq,
    offices,
    chain,
    registered,
    dissolved,
    since,
    weight: dissolved ? 0 : expected,
    employeeRange: employeeRange(rng, expected),
    ats: chooseAts(rng, expected, industry),
    careersPage: domain !== null && rng.chance(0.7),
    reqStyle: rng.chance(0.25) ? 1 + rng.int(3) : 0,
    occupations: mix.occupations,
    occupationWeights: mix.weights,
    seed: rng.next(),
  };
}

/** Expected openings of the company of rank i among n: Zipf-like with a flattened head, scaled to `jobs`. */
function zipfSizes(n: number, jobs: number): number[] {
  const offset = Math.max(3, n / 4000);
  const raw = Array.from({ length: n }, (_, i) => 1 / Math.pow(i + offset, 1.1));
  const total = raw.reduce((a, b) => a + b, 0);
  return raw.map((w) => (w / total) * jobs);
}

export function buildCompanies(options: GenerateOptions): Companies {
  const taken = new Set<string>();
  const baseCount = Math.max(5, Math.round(options.jobs / RATES.openingsPerCompany));
  const sizes = zipfSizes(baseCount, options.jobs);
  const list: Company[] = [];
  const linkRng = new Rng(options.seed, STREAM.company, -1);
  for (let i = 0; i < baseCount; i += 1) {
    const registered = i < baseCount * 0.01 || linkRng.chance(RATES.registered - 0.01);
    list.push(makeCompany(options, i, sizes[i]!, 1, taken, registered, false));
  }
  const dissolved = Math.round(baseCount * RATES.inactiveRegistryOnly);
  for (let k = 0; k < dissolved; k += 1) list.push(makeCompany(options, list.length, 1 + linkRng.int(20), 1, taken, true, true));
  const added: Company[] = [];
  for (const day of releaseDays(options.days).slice(1)) {
    const count = Math.max(1, Math.round(baseCount * RATES.newCompaniesPerRelease));
    for (let k = 0; k < count; k += 1) {
      const company = makeCompany(options, list.length, 2 + linkRng.int(10), day, taken, true, false);
      list.push(company);
      added.push(company);
    }
  }
  const mixOffset = new Int32Array(list.length + 1);
  list.forEach((company, i) => (mixOffset[i + 1] = mixOffset[i]! + company.occupations.length));
  return { list, mixOffset, base: new Weighted(sizes), baseCount, added };
}
