// The facts of one opening that every copy shares: level, title, team, place, pay, employment type, requisition.

import { LADDERS, OCCUPATIONS, type Ladder, type Level, type Occupation } from '../reference/occupations.js';
import { SECTORS, type SectorRef } from '../reference/sectors.js';
import type { Company } from './companies.js';
import { STREAM } from './options.js';
import { payOf, type Pay } from './pay.js';
import { placeOf, type Place } from './places.js';
import { hashInts, pickWeighted, Rng } from './random.js';

export type EmploymentType = 'FULL_TIME' | 'PART_TIME' | 'CONTRACT' | 'TEMPORARY' | 'INTERN' | 'PER_DIEM';

export interface Content {
  index: number;
  company: Company;
  occupation: Occupation;
  sector: SectorRef;
  level: Level;
  spec: string | null;
  title: string;
  /** Team name, what it does, and (for large employers or chains) the unit that makes the paragraph unique. */
  team: string;
  focus: string;
  site: string;
  unit: string | null;
  place: Place;
  pay: Pay;
  employment: EmploymentType;
  requisition: string;
  /** Seed of the text shared by every opening of this company and occupation. */
  templateSeed: number;
}

const LEVEL_PAIRS = {} as Record<Ladder, readonly (readonly [Level, number])[]>;
for (const [ladder, levels] of Object.entries(LADDERS) as [Ladder, readonly Level[]][])
  LEVEL_PAIRS[ladder] = levels.map((l) => [l, l.weight] as const);

const UNIT_WORDS: Readonly<Record<string, string>> = {
  retail: 'Store #',
  hospitality: 'Location #',
  warehouse: 'Building ',
  logistics: 'Terminal ',
  manufacturing: 'Line ',
  healthcare: 'Unit ',
  nursing: 'Unit ',
  education: 'Room ',
};

function titleOf(occupation: Occupation, level: Level, spec: string | null, style: number): string {
  const core = `${level.prefix}${occupation.title}${level.suffix}`;
  if (!spec) return core;
  return style === 0 ? `${core}, ${spec}` : style === 1 ? `${core} - ${spec}` : `${core} (${spec})`;
}

function employmentOf(rng: Rng, occupation: Occupation, level: Level): EmploymentType {
  if (level.intern) return 'INTERN';
  const u = rng.float();
  if (occupation.basis === 'hour' && ['retail', 'hospitality', 'education'].includes(occupation.sector) && u < 0.35) return 'PART_TIME';
  if ((occupation.sector === 'healthcare' || occupation.sector === 'nursing') && u < 0.08) return 'PER_DIEM';
  if (u > 0.96) return 'CONTRACT';
  if (u > 0.94) return 'TEMPORARY';
  return 'FULL_TIME';
}

/** Team, focus and unit from the variant number: distinct variants of one company and occupation get distinct paragraphs. */
function teamOf(
  sector: SectorRef,
  sectorId: string,
  company: Company,
  variant: number,
  salt: number,
): Pick<Content, 'team' | 'focus' | 'site' | 'unit'> {
  const teams = sector.teams.length;
  const focuses = sector.focus.length;
  const overflow = Math.floor(variant / (teams * focuses));
  const unitWord = UNIT_WORDS[sectorId] ?? 'Suite ';
  const store = company.chain ? 1000 + ((variant * 7919 + salt) % 9000) : 0;
  const unit =
    store > 0
      ? `${unitWord}${store}${overflow >= 9000 / (teams * focuses) ? `-${overflow}` : ''}`
      : overflow > 0
        ? `${unitWord}${100 + overflow}`
        : null;
  return {
    team: sector.teams[(variant + salt) % teams]!,
    focus: sector.focus[Math.floor(variant / teams) % focuses]!,
    site: sector.sites[(salt >>> 8) % sector.sites.length]!,
    unit,
  };
}

export function contentOf(seed: number, index: number, company: Company, occupationIndex: number, variant: number): Content {
  const rng = new Rng(seed, STREAM.content, index);
  const occupation = OCCUPATIONS[occupationIndex]!;
  const sector = SECTORS[occupation.sector]!;
  const level = pickWeighted(rng, LEVEL_PAIRS[occupation.ladder]);
  const spec = occupation.specs.length > 0 && rng.chance(0.4) ? rng.pick(occupation.specs) : null;
  const salt = hashInts(seed, company.index, occupationIndex);
  const place = placeOf(seed, index, company, occupation.sector);
  return {
    index,
    company,
    occupation,
    sector,
    level,
    spec,
    title: titleOf(occupation, level, spec, company.seed % 3),
    ...teamOf(sector, occupation.sector, company, variant, salt),
    place,
    pay: payOf(rng, occupation, level, place.cities[0], place.country),
    employment: employmentOf(rng, occupation, level),
    requisition: String(10000 + (hashInts(seed, index, 77) % 90000)),
    templateSeed: salt,
  };
}
