// Every name of a place the gazetteer knows (cities with their aliases, subdivisions, countries), to
// recognise a place written into a job title.

import { CITIES, SUBDIVISIONS } from '../reference/gazetteer.js';
import { COUNTRIES } from '../reference/geo-world.js';

export function placeNames(): string[] {
  const names = new Set<string>();
  for (const city of CITIES) for (const name of [city.name, city.local, ...city.aliases]) if (name) names.add(name);
  for (const subdivision of SUBDIVISIONS) names.add(subdivision.name);
  for (const country of COUNTRIES) for (const name of [country.name, ...country.aliases]) names.add(name);
  return [...names];
}
