// The openings of a generation: how many start each day, which company and occupation each belongs to, and its team variant.

import type { Companies } from './companies.js';
import { RATES, STREAM, type GenerateOptions } from './options.js';
import { Rng } from './random.js';

export interface Openings {
  count: number;
  /** firstIndex[d] is the first opening that starts on day d; openings of day d are firstIndex[d] .. firstIndex[d+1]-1. */
  firstIndex: Int32Array;
  startDay: Uint16Array;
  company: Int32Array;
  occupation: Uint16Array;
  /** Position of the opening among its company's openings of the same occupation: makes its team paragraph unique. */
  variant: Uint32Array;
}

function dailyCounts(options: GenerateOptions): number[] {
  const counts = [0, options.jobs];
  for (let day = 2; day <= options.days; day += 1) {
    const rng = new Rng(options.seed, STREAM.day, day, 1);
    counts.push(Math.round(options.jobs * RATES.newOpeningsPerDay * (0.85 + 0.3 * rng.float())));
  }
  return counts;
}

/** firstIndex[d] for every day d in 1 .. days + 1 (index 0 unused). */
export function firstIndexes(options: GenerateOptions): Int32Array {
  const counts = dailyCounts(options);
  const firstIndex = new Int32Array(options.days + 2);
  for (let day = 1; day <= options.days; day += 1) firstIndex[day + 1] = firstIndex[day]! + counts[day]!;
  return firstIndex;
}

export function buildOpenings(options: GenerateOptions, companies: Companies): Openings {
  const firstIndex = firstIndexes(options);
  const count = firstIndex[options.days + 1]!;
  const openings: Openings = {
    count,
    firstIndex,
    startDay: new Uint16Array(count),
    company: new Int32Array(count),
    occupation: new Uint16Array(count),
    variant: new Uint32Array(count),
  };
  const seen = new Uint32Array(companies.mixOffset[companies.list.length]!);
  for (let day = 1; day <= options.days; day += 1) {
    const added = companies.added.filter((c) => c.since <= day);
    for (let i = firstIndex[day]!; i < firstIndex[day + 1]!; i += 1) {
      const rng = new Rng(options.seed, STREAM.opening, i);
      const fromAdded = added.length > 0 && rng.chance(0.01);
      const company = fromAdded ? added[rng.int(added.length)]! : companies.list[companies.base.draw(rng)]!;
      const pick = company.occupationWeights.draw(rng);
      const occupation = company.occupations[pick]!;
      const cell = companies.mixOffset[company.index]! + pick;
      const variant = seen[cell]!;
      seen[cell] = variant + 1;
      openings.startDay[i] = day;
      openings.company[i] = company.index;
      openings.occupation[i] = occupation;
      openings.variant[i] = variant;
    }
  }
  return openings;
}
