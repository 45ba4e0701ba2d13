// The occupation list (a few hundred, across sectors) and the seniority ladders their titles climb.

import { FIELD_OCCUPATIONS } from './occupations-field.js';
import { OFFICE_OCCUPATIONS } from './occupations-office.js';
import { OCCUPATION_SOC } from './soc.js';

export type Ladder = 'ic' | 'pro' | 'clinical' | 'hourly' | 'manager' | 'none';
export type PayBasis = 'year' | 'hour' | 'week';

export interface Occupation {
  index: number;
  title: string;
  sector: string;
  /** Its SOC 2018 detailed occupation code (the truth the publisher's classification is measured against). */
  soc: string;
  /** Median pay at the middle level, in US dollars per `basis`. */
  pay: number;
  basis: PayBasis;
  ladder: Ladder;
  skills: readonly string[];
  duties: readonly string[];
  specs: readonly string[];
}

export interface Level {
  prefix: string;
  suffix: string;
  pay: number;
  years: string;
  weight: number;
  intern?: boolean;
}

const level = (prefix: string, suffix: string, pay: number, years: string, weight: number, intern = false): Level => ({ prefix, suffix, pay, years, weight, ...(intern ? { intern } : {}) });

export const LADDERS: Readonly<Record<Ladder, readonly Level[]>> = {
  ic: [
    level('', ' Intern', 0.45, '0-1 years', 0.03, true), level('Junior ', '', 0.75, '0-2 years', 0.07), level('', ' I', 0.82, '1+ years', 0.1),
    level('', '', 1, '3+ years', 0.3), level('', ' II', 0.95, '2+ years', 0.12), level('', ' III', 1.15, '4+ years', 0.08),
    level('Senior ', '', 1.25, '5+ years', 0.18), level('Staff ', '', 1.5, '8+ years', 0.05), level('Principal ', '', 1.75, '10+ years', 0.03),
    level('Lead ', '', 1.35, '7+ years', 0.04),
  ],
  pro: [
    level('Junior ', '', 0.78, '0-2 years', 0.1), level('', '', 1, '2+ years', 0.45), level('', ' I', 0.85, '1+ years', 0.07), level('', ' II', 1, '3+ years', 0.07),
    level('Senior ', '', 1.25, '5+ years', 0.2), level('Lead ', '', 1.35, '6+ years', 0.06), level('Associate ', '', 0.8, '1+ years', 0.05),
  ],
  clinical: [level('', '', 1, '1+ years', 0.75), level('Senior ', '', 1.12, '4+ years', 0.1), level('Lead ', '', 1.15, '5+ years', 0.08), level('', ' II', 1.06, '2+ years', 0.07)],
  hourly: [level('', '', 1, '0-1 years', 0.8), level('Lead ', '', 1.15, '1+ years', 0.1), level('Senior ', '', 1.1, '2+ years', 0.05), level('', ' Trainee', 0.9, '0 years', 0.05)],
  manager: [level('Assistant ', '', 0.75, '2+ years', 0.15), level('', '', 1, '4+ years', 0.55), level('Senior ', '', 1.2, '7+ years', 0.2), level('Regional ', '', 1.3, '8+ years', 0.1)],
  none: [level('', '', 1, '2+ years', 1)],
};

function parse(sector: string, line: string, index: number): Occupation {
  const [title, pay, ladder, skills, duties, specs] = line.split('|') as [string, string, Ladder, string, string, string];
  const weekly = pay.endsWith('w');
  const amount = Number(weekly ? pay.slice(0, -1) : pay);
  const basis: PayBasis = weekly ? 'week' : amount < 500 ? 'hour' : 'year';
  const soc = OCCUPATION_SOC[title];
  if (!soc) throw new Error(`occupation "${title}" has no SOC code in soc.ts`);
  return { index, title, sector, soc, pay: amount, basis, ladder, skills: skills.split(';'), duties: duties.split(';'), specs: specs ? specs.split(';') : [] };
}

export const OCCUPATIONS: readonly Occupation[] = Object.entries({ ...OFFICE_OCCUPATIONS, ...FIELD_OCCUPATIONS })
  .flatMap(([sector, list]) => list.map((line) => [sector, line] as const))
  .map(([sector, line], index) => parse(sector, line, index));

export const OCCUPATIONS_BY_SECTOR: ReadonlyMap<string, readonly number[]> = OCCUPATIONS.reduce((map, o) => {
  map.set(o.sector, [...(map.get(o.sector) ?? []), o.index]);
  return map;
}, new Map<string, number[]>());
