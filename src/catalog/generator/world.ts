// Everything a generation derives from its options before writing a day: calendar, companies, registry and openings.

import { Calendar } from './calendar.js';
import { buildCompanies, type Companies } from './companies.js';
import { buildOpenings, type Openings } from './openings.js';
import type { GenerateOptions } from './options.js';
import { Registry } from './registry.js';

export interface World {
  options: GenerateOptions;
  calendar: Calendar;
  companies: Companies;
  registry: Registry;
  openings: Openings;
  /** The openings that exist on a day, grouped by company (in index order within one): the order postings are written
   * in, because consecutive openings of one employer share most of their text and keep it in the caches. */
  dayOrder(day: number): Int32Array;
}

function byCompany(openings: Openings, end: number, companies: number): Int32Array {
  const starts = new Int32Array(companies + 1);
  for (let i = 0; i < end; i += 1) starts[openings.company[i]! + 1]! += 1;
  for (let c = 0; c < companies; c += 1) starts[c + 1]! += starts[c]!;
  const order = new Int32Array(end);
  for (let i = 0; i < end; i += 1) order[starts[openings.company[i]!]!++] = i;
  return order;
}

export function buildWorld(options: GenerateOptions): World {
  const calendar = new Calendar(options.start);
  const companies = buildCompanies(options);
  const openings = buildOpenings(options, companies);
  const orders = new Map<number, Int32Array>();
  const dayOrder = (day: number) => {
    let order = orders.get(day);
    if (!order) {
      orders.clear();
      order = byCompany(openings, openings.firstIndex[day + 1]!, companies.list.length);
      orders.set(day, order);
    }
    return order;
  };
  return { options, calendar, companies, registry: new Registry(companies, options.seed, options.days), openings, dayOrder };
}
