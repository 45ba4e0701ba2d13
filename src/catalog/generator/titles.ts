// How each copy writes an opening's title: abbreviations, "&", requisition numbers, location and remote suffixes, capitals.

import type { SourceRef } from '../reference/sources.js';
import type { Content } from './content.js';
import type { Rng } from './random.js';

const ABBREVIATIONS: [RegExp, string][] = [
  [/\bSenior\b/, 'Sr.'],
  [/\bJunior\b/, 'Jr.'],
  [/\bManager\b/, 'Mgr'],
  [/\bAssistant\b/, 'Asst.'],
  [/\bAdministrative\b/, 'Admin'],
];

/** The title after `edits` title tweaks: a specialisation or the department is appended. */
export function editedTitle(content: Content, tweaks: number): string {
  if (tweaks === 0) return content.title;
  const extra = content.occupation.specs.find((s) => s !== content.spec) ?? content.sector.department;
  return content.spec ? `${content.title} - ${extra}` : `${content.title}, ${extra}`;
}

function abbreviate(rng: Rng, title: string, rate: number): string {
  let out = title;
  for (const [pattern, short] of ABBREVIATIONS) if (pattern.test(out) && rng.chance(rate)) out = out.replace(pattern, short);
  if (rng.chance(rate)) out = out.includes(' & ') ? out.replace(' & ', ' and ') : out.replace(' and ', ' & ');
  return out;
}

function requisition(content: Content): string {
  const style = content.company.reqStyle;
  return style === 1 ? ` (R-${content.requisition})` : style === 2 ? ` - Req ${content.requisition}` : ` [${content.requisition}]`;
}

function locationSuffix(content: Content): string {
  const city = content.place.cities[0];
  if (!city) return '';
  return ` - ${city.name}${city.country === 'US' ? `, ${city.state}` : ''}`;
}

/** One copy's title. `late` forces the shape a late-detected duplicate first shows. */
export function postingTitle(rng: Rng, content: Content, title: string, source: SourceRef, late: boolean): string {
  const own = source.class === 'ats' || source.class === 'employer-site';
  let out = abbreviate(rng, title, late ? 1 : own ? 0.05 : 0.3);
  if (own && content.company.reqStyle > 0 && rng.chance(0.8)) out += requisition(content);
  const listing = source.class === 'aggregator' || source.class === 'staffing-network' || source.class === 'unknown';
  if (content.place.arrangement === 'remote' && (late || (listing && rng.chance(0.3)))) out += rng.chance(0.5) ? ' [Remote]' : ' (Remote)';
  else if (late || (listing && rng.chance(0.15))) out += locationSuffix(content);
  if (source.caps > 0 && rng.chance(source.caps)) out = out.toUpperCase();
  return out;
}
