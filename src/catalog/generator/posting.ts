// One raw posting as a collector delivers it: the copy of an opening at one source on one day.

import { SOURCES, type SourceRef, type SourceType } from '../reference/sources.js';
import { boardOf } from './boards.js';
import { HOUR_MS, iso } from './calendar.js';
import type { Company } from './companies.js';
import { copyBlocks, renderHtml, renderText, shownSkills, truncate } from './description.js';
import { employerSpelling } from './employer-names.js';
import { fillUrl, postingKey, sourcePostingId } from './identifiers.js';
import type { OpeningState } from './opening-state.js';
import { STREAM } from './options.js';
import { payText, rawPay, type RawPay } from './pay.js';
import { formatPlace, type RawLocation } from './places.js';
import type { Slot } from './plan.js';
import { hashFloat, hashInts, Rng } from './random.js';
import { postingTitle } from './titles.js';

export interface RawPosting {
  source: string;
  board: string;
  source_posting_id: string;
  source_class: string;
  source_type: SourceType;
  opening_id: string;
  truth_company_id: string | null;
  employer_name: string;
  employer_domain: string | null;
  /** The opening's SOC 2018 detailed occupation: truth for measuring the publisher's classification, never published. */
  truth_soc_code: string;
  /** The pay the description states (interval: the generator's basis), or null: truth for the publisher's extraction, never published. */
  truth_description_pay: RawPay | null;
  /** The skills the generator wrote into the description, sorted: truth for the publisher's extraction, never published. */
  truth_skills: string[];
  /** Whether the employer's own ATS or careers page lists the opening today (null: none of theirs was up at a read since day 1): truth. */
  truth_listed_by_employer: boolean | null;
  /** Times the collectors could see the opening taken down and posted again under a new id by today: truth, never published. */
  truth_reposts: number;
  title: string;
  description_text: string | null;
  description_html: string | null;
  locations: string[];
  work_arrangement: string | null;
  employment_type: string | null;
  pay: RawPay | null;
  posted_at: string | null;
  /** When the collectors first saw the posting: the start of the first read of its board that returned it. */
  first_seen_at: string;
  posting_url: string | null;
  application_url: string | null;
  attribution: { required: boolean; text: string; url: string } | null;
  application_check: { result: 'available' | 'closed' | 'broken' | 'inconclusive'; checked_at: string } | null;
  source_data: { source_type: SourceType; department: string | null; requisition_id: string | null; board_kind: string };
  raw: { collector: string; http_status: number; extraction: { method: string; parser: string; fields: number; elapsed_ms: number } };
}

export interface BuiltPosting {
  posting: RawPosting;
  /** What each location string means: the generator's truth for testing the parser. */
  locations: RawLocation[];
}

const ARRANGEMENT_SPELLINGS = {
  remote: ['Remote', 'REMOTE', 'remote', 'Fully remote'],
  hybrid: ['Hybrid', 'hybrid', 'HYBRID'],
  in_person: ['On-site', 'Onsite', 'In office', 'In-person', 'On site'],
} as const;
const EMPLOYMENT_SPELLINGS: Readonly<Record<SourceRef['spelling'], Readonly<Record<string, readonly string[]>>>> = {
  enum: {
    FULL_TIME: ['FULL_TIME'],
    PART_TIME: ['PART_TIME'],
    CONTRACT: ['CONTRACT'],
    TEMPORARY: ['TEMPORARY'],
    INTERN: ['INTERN'],
    PER_DIEM: ['PER_DIEM'],
  },
  label: {
    FULL_TIME: ['Full-time', 'Full Time'],
    PART_TIME: ['Part-time', 'Part Time'],
    CONTRACT: ['Contract'],
    TEMPORARY: ['Temporary'],
    INTERN: ['Internship'],
    PER_DIEM: ['Per Diem'],
  },
  loose: {
    FULL_TIME: ['full time', 'Full-time', 'FT', 'Permanent'],
    PART_TIME: ['part time', 'Part-time', 'PT'],
    CONTRACT: ['contract', 'Contractor'],
    TEMPORARY: ['temp', 'Temporary'],
    INTERN: ['intern', 'Internship'],
    PER_DIEM: ['per diem', 'PRN'],
  },
};
const BOARD_KIND: Readonly<Record<string, string>> = {
  ats: 'company_board',
  'employer-site': 'careers_site',
  aggregator: 'employer_page',
  'staffing-network': 'agency_listing',
  'government-exchange': 'public_exchange',
  dataset: 'crawl',
  purchased: 'feed',
  'third-party-api': 'api',
  unknown: 'unknown',
};
const METHOD: Readonly<Record<SourceType, string>> = {
  ats_api: 'api',
  ats_html: 'html',
  career_page_html: 'html',
  jsonld: 'jsonld',
  xml_feed: 'feed',
  aggregator_api: 'api',
  aggregator_html: 'html',
  rss: 'feed',
  partner_csv: 'csv',
};

/** A URL path segment: lowercase letters and digits joined by hyphens. */
function urlSlug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

export function sourceTypeOf(seed: number, source: SourceRef, company: Company): SourceType {
  const u = hashFloat(seed, company.index, source.name.length, 11);
  let total = 0;
  for (const [, w] of source.types) total += w;
  let acc = 0;
  for (const [type, w] of source.types) if (u * total < (acc += w)) return type;
  return source.types[0]![0];
}

/** The latest check of the posting's application page by `day`, if one ran since the posting was first seen. */
function applicationCheck(
  state: OpeningState,
  slot: Slot,
  source: SourceRef,
  day: number,
  firstSeen: number,
): RawPosting['application_check'] {
  const { seed } = state.world.options;
  if (hashFloat(seed, state.index, slot.slot, 21) >= source.check) return null;
  const every = 2 + (hashInts(seed, state.index, slot.slot, 22) % 4);
  const phase = hashInts(seed, state.index, slot.slot, 23) % every;
  const checkDay = day - ((((day + phase) % every) + every) % every);
  const checkedAt = state.world.calendar.cutoff(checkDay) - (1 + (hashInts(seed, state.index, checkDay, 24) % 20)) * HOUR_MS;
  if (checkedAt < firstSeen) return null;
  const u = hashFloat(seed, state.index, slot.slot, checkDay, 25);
  const result = checkedAt >= state.timeline.closedAt ? 'closed' : u < 0.01 ? 'broken' : u < 0.03 ? 'inconclusive' : 'available';
  return { result, checked_at: iso(checkedAt) };
}

function description(
  state: OpeningState,
  slot: Slot,
  source: SourceRef,
  version: number,
  day: number,
  rng: Rng,
): { text: string | null; html: string | null; pay: RawPay | null; skills: string[] } {
  if (source.class === 'purchased' || source.class === 'unknown' ? rng.chance(0.04) : rng.chance(0.005))
    return { text: null, html: null, pay: null, skills: [] };
  const canonical = state.version(version);
  const shown = slot.slot === 0 ? canonical.blocks : copyBlocks(canonical.blocks, canonical.ctx, rng, source.dropBoilerplate);
  const late = slot.fixedAt > 0 && state.world.calendar.cutoff(day) <= slot.fixedAt;
  const limit = late ? 110 + rng.int(90) : source.truncate ? 300 + rng.int(401) : 0;
  const asHtml = !late && rng.chance(source.html);
  const strong = rng.chance(0.3);
  const bullet = rng.chance(0.6) ? '- ' : '• ';
  const render = () => (asHtml && limit === 0 ? renderHtml(shown, strong) : renderText(shown, bullet, limit > 0 ? 720 : Infinity));
  const body =
    shown === canonical.blocks ? canonical.rendered(`${asHtml && limit === 0}|${strong}|${bullet}|${limit > 0}`, render) : render();
  const text = asHtml && limit === 0 ? null : limit > 0 ? truncate(body, limit) : body;
  // The pay the text states: its pay block's sentence, when a truncation left it whole.
  const { pay } = canonical.ctx;
  const states = shown.some((b) => b.section === 'pay') && (text ?? body).includes(payText(pay));
  const stated = states ? { currency: pay.currency, min: pay.min, max: pay.max, interval: pay.basis } : null;
  const skills = shownSkills(shown, limit > 0 ? text : null);
  return text === null ? { text: null, html: body, pay: stated, skills } : { text, html: null, pay: stated, skills };
}

interface Identity {
  source: SourceRef;
  board: string;
  id: string;
  sourceType: SourceType;
  generation: number;
  version: number;
  late: boolean;
}

function identityOf(state: OpeningState, slot: Slot, day: number): Identity {
  const { world, content, index } = state;
  const source = SOURCES[slot.source]!;
  const generation = state.generation(slot, day);
  return {
    source,
    board: state.board(slot, day).name,
    id: sourcePostingId(world.options.seed, source, postingKey(index, slot.slot, generation)),
    sourceType: sourceTypeOf(world.options.seed, source, content.company),
    generation,
    version: state.versionOf(slot, day),
    late: slot.fixedAt > 0 && world.calendar.cutoff(day) <= slot.fixedAt,
  };
}

/** The employer as this copy names it; after an acquisition some copies already use the acquirer's name and domain. */
function employerOf(
  state: OpeningState,
  slot: Slot,
  source: SourceRef,
  day: number,
  rng: Rng,
): Pick<RawPosting, 'truth_company_id' | 'employer_name' | 'employer_domain'> {
  const { world, content, index } = state;
  const company = content.company;
  const merger = world.registry.mergedOn(company.index, day);
  const shown = merger && hashFloat(world.options.seed, index, slot.slot, 31) < 0.35 ? world.companies.list[merger.into]! : company;
  const style = source.class === 'government-exchange' && rng.chance(0.6) ? 0.99 : rng.float();
  const domain = rng.chance(source.class === 'employer-site' ? 1 : source.class === 'ats' ? 0.6 : 0.25) ? shown.domain : null;
  return {
    truth_company_id: company.registered ? world.registry.resolve(company.index, day).id : null,
    employer_name: employerSpelling(shown.name, style, rng.int(3)),
    employer_domain: domain,
  };
}

function postedAt(state: OpeningState, slot: Slot, source: SourceRef, generation: number, rng: Rng): string | null {
  if (rng.chance(source.class === 'purchased' ? 0.3 : 0.05)) return null;
  return iso(generation > 0 ? state.timeline.repostAt : Math.max(state.timeline.posted, slot.appear - rng.float() * 3 * HOUR_MS));
}

function sourceDataOf(state: OpeningState, ids: Identity, rng: Rng): RawPosting['source_data'] {
  const own = ids.source.class === 'ats' || ids.source.class === 'employer-site';
  return {
    source_type: ids.sourceType,
    department: own && rng.chance(0.8) ? state.content.sector.department : null,
    requisition_id: own && rng.chance(0.7) ? `R-${state.content.requisition}` : null,
    board_kind: BOARD_KIND[ids.source.class]!,
  };
}

function rawOf(state: OpeningState, slot: Slot, ids: Identity, rng: Rng): RawPosting['raw'] {
  const { seed } = state.world.options;
  const parser = `${1 + (hashInts(seed, slot.source) % 3)}.${hashInts(seed, slot.source, 1) % 10}.0`;
  return {
    collector: ids.source.collector,
    http_status: 200,
    extraction: { method: METHOD[ids.sourceType], parser, fields: 12 + rng.int(9), elapsed_ms: 20 + rng.int(900) },
  };
}

export function buildPosting(state: OpeningState, slot: Slot, day: number): BuiltPosting {
  const { content, index } = state;
  const ids = identityOf(state, slot, day);
  const { source } = ids;
  const rng = new Rng(state.world.options.seed, STREAM.posting, index, slot.slot);
  const { ctx } = state.version(ids.version);
  const title = postingTitle(rng, content, ctx.title, source, ids.late);
  const locations = formatPlace(rng, content.place, source, ids.late ? 3 : 0);
  const parts = {
    board: ids.board,
    id: ids.id,
    slug: urlSlug(title).slice(0, 60),
    domain: content.company.domain,
    city: urlSlug(content.place.cities[0]?.name ?? 'remote'),
  };
  const ownUrl = source.url ? fillUrl(source.url, parts) : null;
  const postingUrl = rng.chance(0.03) ? null : ownUrl;
  const arrangement = content.place.arrangement;
  const { text, html, pay: describedPay, skills } = description(state, slot, source, ids.version, day, rng);
  const firstSeen = state.firstSeen(slot, day);
  const posting: RawPosting = {
    source: source.name,
    board: ids.board,
    source_posting_id: ids.id,
    source_class: source.class,
    source_type: ids.sourceType,
    opening_id: `op-${String(index + 1).padStart(8, '0')}`,
    ...employerOf(state, slot, source, day, rng),
    truth_soc_code: content.occupation.soc,
    truth_description_pay: describedPay,
    truth_skills: skills,
    truth_listed_by_employer: state.listedByEmployer(day),
    truth_reposts: state.reposts(day),
    title,
    description_text: text,
    description_html: html,
    locations: locations.map((l) => l.raw),
    work_arrangement: arrangement && rng.chance(slot.slot === 0 ? 0.95 : 0.8) ? rng.pick(ARRANGEMENT_SPELLINGS[arrangement]) : null,
    employment_type: rng.chance(0.9) ? rng.pick(EMPLOYMENT_SPELLINGS[source.spelling][content.employment]!) : null,
    pay: rawPay(rng, ctx.pay, source),
    posted_at: postedAt(state, slot, source, ids.generation, rng),
    first_seen_at: iso(firstSeen),
    posting_url: postingUrl,
    application_url: applicationUrl(state, slot, source, day, rng, parts, ownUrl),
    attribution: source.attribution
      ? { required: rng.chance(source.attribution.required), text: source.attribution.text, url: postingUrl ?? source.attribution.url }
      : null,
    application_check: applicationCheck(state, slot, source, day, firstSeen),
    source_data: sourceDataOf(state, ids, rng),
    raw: rawOf(state, slot, ids, rng),
  };
  return { posting, locations };
}

const UTM: Readonly<Record<string, string>> = {
  indeed: 'indeed',
  linkedin: 'linkedin',
  ziprecruiter: 'ziprecruiter',
  glassdoor: 'glassdoor',
  simplyhired: 'simplyhired',
};

/** Copies on the employer's site and aggregators often point at the ATS application, sometimes with tracking parameters. */
function applicationUrl(
  state: OpeningState,
  slot: Slot,
  source: SourceRef,
  day: number,
  rng: Rng,
  parts: Parameters<typeof fillUrl>[1],
  ownUrl: string | null,
): string | null {
  const first = state.slots[0]!;
  const firstSource = SOURCES[first.source]!;
  if (
    slot.slot > 0 &&
    firstSource.class === 'ats' &&
    (source.class === 'aggregator' || source.class === 'employer-site') &&
    rng.chance(0.5)
  ) {
    const generation = state.generation(first, day);
    const atsId = sourcePostingId(state.world.options.seed, firstSource, postingKey(state.index, 0, generation));
    const atsParts = { ...parts, board: boardOf(firstSource, state.content.company, ''), id: atsId };
    const atsUrl = fillUrl(firstSource.apply!, atsParts, fillUrl(firstSource.url!, atsParts));
    const utm = UTM[source.name];
    if (!utm || !rng.chance(0.5)) return atsUrl;
    const [address, fragment] = atsUrl.split('#') as [string, string | undefined];
    return `${address}${address.includes('?') ? '&' : '?'}utm_source=${utm}&utm_medium=jobs${fragment === undefined ? '' : `#${fragment}`}`;
  }
  if (rng.chance(0.12)) return null;
  if (source.apply && ownUrl) return fillUrl(source.apply, parts, ownUrl);
  if (source.class === 'employer-site' && state.content.company.domain)
    return `https://${state.content.company.domain}/careers/apply?job=${parts.id}`;
  return ownUrl;
}
