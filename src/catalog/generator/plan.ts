// Where an opening is posted: its first posting and its copies, when each appears, lingers and learns of edits.

import type { Company } from './companies.js';
import { DAY_MS, HOUR_MS, type Calendar } from './calendar.js';
import { STREAM } from './options.js';
import { pickWeighted, Rng } from './random.js';
import type { Timeline } from './timeline.js';
import { SOURCES, sourceIndex, type SourceRef } from '../reference/sources.js';

export interface Slot {
  slot: number;
  source: number;
  appear: number;
  /** First day the posting is no longer delivered. */
  endDay: number;
  /** Days a copy takes to pick up an edit of the first posting. */
  lag: number;
  /** A copy first seen badly cut short, completed at `fixedAt`. */
  fixedAt: number;
}

const COUNTS: [number, number][] = [
  [1, 60],
  [2, 24],
  [3, 10],
  [4, 4],
  [5, 2],
];
const FIRST_OTHER: [string, number][] = [
  ['indeed', 3],
  ['linkedin', 2],
  ['ziprecruiter', 1.5],
  ['randstad', 0.7],
  ['adecco', 0.7],
  ['roberthalf', 0.6],
  ['jobdata-api', 0.8],
  ['partner-feed', 0.8],
  ['misc-feed', 0.3],
  ['usajobs', 0.4],
  ['jobbank-canada', 0.4],
  ['findajob-uk', 0.4],
  ['bundesagentur', 0.4],
];
const COPIES: [string, number][] = [
  ['careers-page', 18],
  ['indeed', 18],
  ['linkedin', 16],
  ['ziprecruiter', 8],
  ['glassdoor', 7],
  ['simplyhired', 4],
  ['randstad', 1.5],
  ['adecco', 1.5],
  ['roberthalf', 1.5],
  ['usajobs', 3],
  ['jobbank-canada', 4],
  ['findajob-uk', 4],
  ['bundesagentur', 4],
  ['commoncrawl-jobs', 6],
  ['partner-feed', 4],
  ['jobdata-api', 5],
  ['misc-feed', 1],
];
const DELAYS: [number, number][] = [
  [0, 35],
  [1, 30],
  [2, 20],
  [3, 15],
];
const FIRST_OTHER_INDEXED = FIRST_OTHER.map(([name, weight]) => [sourceIndex(name), weight] as const);
const COPIES_INDEXED = COPIES.map(([name, weight]) => [sourceIndex(name), weight] as const);

type Weights = readonly (readonly [number, number])[];
const choices = new Map<string, { first: Weights; copies: Weights }>();

/** The sources a company's openings in one country can be posted on, kept per company because every opening asks. */
function sourcesFor(company: Company, country: string, government: boolean): { first: Weights; copies: Weights } {
  const key = `${company.seed}|${company.index}|${country}|${government}`;
  let found = choices.get(key);
  if (!found) {
    const ok = ([source]: readonly [number, number]) => allowed(SOURCES[source]!, company, country, government);
    found = { first: FIRST_OTHER_INDEXED.filter(ok), copies: COPIES_INDEXED.filter(ok) };
    if (choices.size > 100_000) choices.clear();
    choices.set(key, found);
  }
  return found;
}

function allowed(source: SourceRef, company: Company, country: string, government: boolean): boolean {
  if (source.countries && !source.countries.includes(country)) return false;
  if (source.name === 'usajobs' && !government) return false;
  if (source.name === 'careers-page' && !company.careersPage) return false;
  if ((source.url?.includes('{domain}') ?? false) && company.domain === null) return false;
  return true;
}

function firstSource(rng: Rng, company: Company, country: string, government: boolean): number {
  if (government && country === 'US' && rng.chance(0.6)) return sourceIndex('usajobs');
  const u = rng.float();
  if (u < 0.7) return company.ats;
  if (u < 0.9) return company.careersPage ? sourceIndex('careers-page') : company.ats;
  return pickWeighted(rng, sourcesFor(company, country, government).first);
}

function endDay(rng: Rng, source: SourceRef, first: boolean, closeDay: number): number {
  if (first) return closeDay + (rng.chance(0.7) ? 0 : 1);
  if (source.class === 'aggregator') return closeDay + 2 + rng.int(5);
  if (source.class === 'ats' || source.class === 'employer-site') return closeDay + rng.int(3);
  return closeDay + rng.int(4);
}

/** The posting slots of an opening; `country` is where it is located and `government` whether a public employer posts it. */
export function planOf(
  seed: number,
  index: number,
  timeline: Timeline,
  company: Company,
  country: string,
  government: boolean,
  calendar: Calendar,
): Slot[] {
  const rng = new Rng(seed, STREAM.plan, index);
  const closedEarly = timeline.closeDay <= 1;
  const count = Math.max(pickWeighted(rng, COUNTS), closedEarly ? 2 : 1);
  const first = firstSource(rng, company, country, government);
  const slots: Slot[] = [
    { slot: 0, source: first, appear: timeline.posted, endDay: endDay(rng, SOURCES[first]!, true, timeline.closeDay), lag: 0, fixedAt: 0 },
  ];
  const used = new Set([first]);
  const candidates = sourcesFor(company, country, government).copies;
  for (let tries = 0; slots.length < count && tries < 20; tries += 1) {
    const source = pickWeighted(rng, candidates);
    if (used.has(source)) continue;
    used.add(source);
    const appear = timeline.posted + pickWeighted(rng, DELAYS) * DAY_MS + rng.float() * 20 * HOUR_MS;
    slots.push({
      slot: slots.length,
      source,
      appear,
      endDay: endDay(rng, SOURCES[source]!, false, timeline.closeDay),
      lag: rng.int(3),
      fixedAt: 0,
    });
  }
  if (timeline.lateDuplicate && slots.length > 1) markLate(rng, slots[slots.length - 1]!, timeline, calendar);
  // An opening closed before day 1 is in the day-1 backlog because a copy of it lingers there.
  if (closedEarly) slots[slots.length - 1]!.endDay = Math.max(slots[slots.length - 1]!.endDay, 2);
  return slots;
}

/** A late-detected duplicate: backlog copies are moved to the last day before the day-1 reads (which begin 23 hours before
 * the cut-off) so the repair shows within the run. */
function markLate(rng: Rng, slot: Slot, timeline: Timeline, calendar: Calendar): void {
  const backlog = slot.appear < calendar.cutoff(1) - 3 * DAY_MS;
  if (backlog) slot.appear = Math.max(timeline.posted, calendar.cutoff(1) - (24 + rng.float() * 18) * HOUR_MS);
  slot.fixedAt = slot.appear + (1 + rng.int(3) + (backlog ? 1 : 0)) * DAY_MS;
}

/** Whether the slot is among the postings its source lists on `day`. */
export function isListed(slot: Slot, day: number, calendar: Calendar): boolean {
  return slot.appear < calendar.cutoff(day) && day < slot.endDay;
}
