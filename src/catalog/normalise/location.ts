// Reads a raw location string ("San Francisco, CA", "Remote - United States", "München, Bayern") into city, state, country and metro.

import {
  citiesNamed,
  countryByIso,
  countryByName,
  foldKey,
  isUsStateName,
  subdivisionsNamed,
  type GazetteerCity,
  type Msa,
} from '../reference/gazetteer.js';

export {
  citiesNamed,
  countryByIso,
  countryByName,
  defaultCity,
  foldKey,
  subdivisionName,
  subdivisionsNamed,
} from '../reference/gazetteer.js';

export interface ParsedLocation {
  city: string | null;
  state: string | null;
  country: string | null;
  msa: Msa | null;
  remote: boolean;
}

type Place = Omit<ParsedLocation, 'remote'>;

const REMOTE = /\b(remote|anywhere|work from home|wfh|telecommute|telework|home[- ]based)\b/g;
const ARRANGEMENT = /\b(hybrid|on[- ]?site|in[- ]office|in[- ]person|office[- ]based)\b/g;
const ATS_STYLE = /^([a-z]{2})-([a-z]{1,3})-([^,]+)$/i;
const POSTCODE = /\b\d{5}(?:-\d{4})?\b/g;
const PLACE_NAME = /^[\p{L}][\p{L} .'’-]{0,48}$/u;
const NOWHERE: Place = { city: null, state: null, country: null, msa: null };

function fromCity(city: GazetteerCity): Place {
  return { city: city.name, state: city.state, country: city.country, msa: city.msa };
}

/** The name as written when it is mixed case, else each word capitalised. */
function displayName(raw: string): string | null {
  const text = raw.trim().replace(/\s+/g, ' ');
  if (!PLACE_NAME.test(text)) return null;
  if (text !== text.toLowerCase() && text !== text.toUpperCase()) return text;
  return text.toLowerCase().replace(/(^|[\s-])(\p{L})/gu, (_, sep: string, letter: string) => sep + letter.toUpperCase());
}

function unknownCity(raw: string, state: string | null, country: string): Place | null {
  const city = displayName(raw);
  return city ? { city, state, country, msa: null } : null;
}

/** Splits "US-CA-San Francisco" and "Austin, TX (Hybrid)" style text into comma parts, outermost last. */
function splitParts(text: string): string[] {
  const ats = ATS_STYLE.exec(text.trim());
  const spread = ats ? `${ats[3]}, ${ats[2]}, ${ats[1]}` : text;
  return spread
    .replace(POSTCODE, ' ')
    .replace(/[()[\]{}|/;•·]/g, ',')
    .replace(/\s+[-–—:]+\s+|\s*[–—]\s*/g, ',')
    .split(',')
    .map((part) => part.replace(/^[\s\-–—:.]+|[\s\-–—:]+$/g, '').trim())
    .filter((part) => part.length > 0);
}

function single(key: string, raw: string): Place | null {
  const country = countryByName(key);
  if (country) return { ...NOWHERE, country: country.code };
  if (isUsStateName(key) && key !== 'new york') return { ...NOWHERE, state: subdivisionsNamed(key, 'US')[0]!.code, country: 'US' };
  const city = citiesNamed(key)[0];
  if (city) return fromCity(city);
  const states = subdivisionsNamed(key);
  const state = states.find((s) => s.country === 'US' && key.length === 2) ?? (states.length === 1 ? states[0] : undefined);
  if (state) return { ...NOWHERE, state: state.code, country: state.country };
  return splitTrailingState(raw);
}

/** "Austin TX" or "San Jose California" written without a comma. */
function splitTrailingState(raw: string): Place | null {
  const words = raw.trim().split(/\s+/);
  for (let take = Math.min(3, words.length - 1); take >= 1; take -= 1) {
    const state = foldKey(words.slice(-take).join(' '));
    if (subdivisionsNamed(state).length > 0) return pair(words.slice(0, -take).join(' '), state, words.slice(0, -take).join(' '));
  }
  return null;
}

/** "City, X" where X is a US state, another country's subdivision or an ISO country code, in that order of trust. */
function pair(cityRaw: string, outerKey: string, rawCity = cityRaw): Place | null {
  const cityKey = foldKey(cityRaw);
  const states = subdivisionsNamed(outerKey);
  for (const state of states) {
    const city = citiesNamed(cityKey, state.country, state.code)[0];
    if (city) return fromCity(city);
  }
  const iso = countryByIso(outerKey) ?? countryByName(outerKey);
  const inCountry = iso && citiesNamed(cityKey, iso.code)[0];
  if (inCountry) return fromCity(inCountry);
  const region = iso && subdivisionsNamed(cityKey, iso.code)[0];
  if (region) return { ...NOWHERE, state: region.code, country: region.country };
  const state = states[0];
  if (state) return unknownCity(rawCity, state.code, state.country);
  return iso ? unknownCity(rawCity, null, iso.code) : null;
}

function withinCountry(country: string, keys: string[], raws: string[]): Place | null {
  if (keys.length === 0) return { ...NOWHERE, country };
  const inner = keys[keys.length - 1]!;
  if (keys.length === 1) {
    if (country === 'US' && isUsStateName(inner) && inner !== 'new york')
      return { ...NOWHERE, state: subdivisionsNamed(inner, 'US')[0]!.code, country };
    const city = citiesNamed(inner, country)[0];
    if (city) return fromCity(city);
    const state = subdivisionsNamed(inner, country)[0];
    if (state) return { ...NOWHERE, state: state.code, country };
    return unknownCity(raws[0]!, null, country);
  }
  const cityKey = keys[keys.length - 2]!;
  const state = subdivisionsNamed(inner, country)[0];
  if (state) {
    const city = citiesNamed(cityKey, country, state.code)[0];
    return city ? fromCity(city) : unknownCity(raws[raws.length - 2]!, state.code, country);
  }
  const city = citiesNamed(inner, country)[0];
  return city ? fromCity(city) : null;
}

function resolve(parts: string[]): Place | null {
  const keys = parts.map(foldKey);
  const last = keys[keys.length - 1]!;
  const country = countryByName(last) ?? (keys.length >= 3 ? countryByIso(last) : undefined);
  if (country) return withinCountry(country.code, keys.slice(0, -1), parts.slice(0, -1));
  if (keys.length === 1) return single(last, parts[0]!);
  return pair(parts[parts.length - 2]!, last);
}

const memo = new Map<string, ParsedLocation | null>();

/** Reads a raw location string; null when no place (and no remote marker) can be read from it. */
export function parseLocation(raw: string): ParsedLocation | null {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > 300) return null;
  let parsed = memo.get(raw);
  if (parsed === undefined) {
    parsed = parseFresh(raw);
    if (memo.size >= 100_000) memo.clear();
    memo.set(raw, parsed);
  }
  return parsed && { ...parsed };
}

/** Publications repeat the same few thousand strings millions of times, so results are remembered (and copied out). */
function parseFresh(raw: string): ParsedLocation | null {
  const lower = raw.normalize('NFC').toLowerCase();
  const remote = lower.search(REMOTE) >= 0;
  const blank = (match: string) => ' '.repeat(match.length);
  const text = lower.replace(REMOTE, blank).replace(ARRANGEMENT, blank);
  const parts = splitParts(remote || text !== lower ? restoreCase(raw, text) : raw);
  if (parts.length === 0) return remote ? { ...NOWHERE, remote } : null;
  const place = resolve(parts);
  if (!place) return remote ? { ...NOWHERE, remote } : null;
  return { ...place, remote };
}

/** Puts back the original letters of `raw` where the cleaned lowercase text kept them (same length, markers blanked). */
function restoreCase(raw: string, cleaned: string): string {
  const source = raw.normalize('NFC');
  if (source.length !== cleaned.length) return cleaned;
  let out = '';
  for (let i = 0; i < cleaned.length; i += 1) out += cleaned[i] === ' ' && source[i] !== ' ' ? ' ' : source[i];
  return out;
}
