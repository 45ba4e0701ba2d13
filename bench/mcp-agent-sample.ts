// The values the MCP agent tasks ask about, sampled from the catalog through the REST API (the checker's
// keys), deterministically for a seed: employers, titles, states and cities that exist in it, so that
// every count and list is non-trivial on any generated catalog.

import { Rng } from '../src/catalog/generator/random.js';
import type { Rest } from './mcp-agent-kit.js';

export interface Sample {
  /** The catalog's snapshot watermark; "today" of the tasks is its day, so runs on other days ask the same. */
  watermark: string;
  today: string;
  yesterday: string;
  weekAgo: string;
  remotePay: { phrase: string; state: string; amount: number };
  newest: { phrase: string; state: string };
  employer: { companyId: string; name: string };
  sync: { companyId: string; name: string };
  titled: { jobId: string; title: string };
  applyJobId: string;
  saveRead: { country: string; save: number; nth: number };
  hybrid: { city: string; country: string };
  boolean: { either: [string, string]; not: string };
  nothing: { phrase: string; state: string };
  currency: { country: string; currency: string; amount: number };
  partTimeState: string;
}

interface Pay {
  currency: string;
  floor: number | null;
  interval: string | null;
}
interface SampledJob {
  job_id: string;
  title: string;
  work_arrangement?: string;
  locations?: { city?: string; state?: string; country?: string }[];
  postings?: { pay?: Pay | null; posted_at?: string; application_url?: string | null }[];
}

const PER_YEAR: Record<string, number> = { hour: 2080, day: 260, week: 52, month: 12, year: 1 };
/** Words of a title that say the level rather than the role. */
const LEVELS = new Set(['senior', 'junior', 'lead', 'associate', 'principal', 'staff', 'head', 'chief', 'trainee', 'assistant']);
const ROMAN = new Set(['i', 'ii', 'iii', 'iv', 'v']);
const US_STATES =
  'AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY'.split(
    ' ',
  );

const day = (iso: string, minusDays: number) => new Date(Date.parse(iso.slice(0, 10)) - minusDays * 86_400_000).toISOString().slice(0, 10);
const annualFloor = (pay: Pay | null | undefined) =>
  pay?.floor != null && pay.interval && PER_YEAR[pay.interval] ? pay.floor * PER_YEAR[pay.interval]! : undefined;
const roundDown = (amount: number, step: number) => Math.max(step, Math.floor(amount / step) * step);

/** The role words of a title: its part before a dash, comma or parenthesis, lowercased, without numerals. */
function titleWords(title: string): string[] {
  const core = title.split(/ [-–|] |[,(]/)[0] ?? title;
  return (core.toLowerCase().match(/[a-z]+/g) ?? []).filter((w) => !ROMAN.has(w));
}
const titlePhrase = (title: string) => titleWords(title).slice(-2).join(' ');

function shuffled<T>(items: readonly T[], rng: Rng): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** The most frequent key, ties broken by the key. */
function mostFrequent(keys: string[]): string | undefined {
  const counts = new Map<string, number>();
  for (const k of keys) counts.set(k, (counts.get(k) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0];
}

/** The first of the first `tries` of `candidates` for which `accept` holds. */
async function firstAccepted<T>(candidates: T[], accept: (c: T) => Promise<boolean>, tries = 12): Promise<T | undefined> {
  for (const c of candidates.slice(0, tries)) if (await accept(c)) return c;
  return undefined;
}

const usStates = (job: SampledJob) => (job.locations ?? []).filter((l) => l.country === 'US' && l.state).map((l) => l.state!);
const usState = (value: string | null | undefined) => (value?.startsWith('US-') ? value.slice(3) : undefined);

async function remotePay(rest: Rest, jobs: SampledJob[], rng: Rng): Promise<Sample['remotePay']> {
  const candidates = jobs.flatMap((job) => {
    const state = usStates(job)[0];
    const floor = Math.max(...(job.postings ?? []).map((p) => (p.pay?.currency === 'USD' ? (annualFloor(p.pay) ?? 0) : 0)), 0);
    const phrase = titlePhrase(job.title);
    return job.work_arrangement === 'remote' && state && floor >= 30_000 && phrase
      ? [{ phrase, state, amount: roundDown(floor, 10_000) }]
      : [];
  });
  const filters = (c: Sample['remotePay']) => ({
    title: c.phrase,
    work_arrangement: 'remote',
    state: c.state,
    pay_min: c.amount,
    pay_currency: 'USD',
  });
  // Of a dozen candidates, the one with the most matches (the first of them on a tie).
  let best: { c: Sample['remotePay']; n: number } | undefined;
  for (const c of shuffled(candidates, rng).slice(0, 12)) {
    const n = await rest.count(filters(c));
    if (!best || n > best.n) best = { c, n };
  }
  const found = best?.c;
  return found ?? { phrase: 'engineer', state: 'TX', amount: 120_000 };
}

async function companies(rest: Rest, rng: Rng): Promise<[Sample['employer'], Sample['employer']]> {
  const groups = (await rest.groups({}, 'company_id')).filter((g) => g.value !== null);
  const middling = groups.filter((g) => g.count >= 5 && g.count <= 40);
  const pool = shuffled(middling.length >= 2 ? middling : [...groups].sort((a, b) => a.count - b.count), rng);
  const named = async (companyId: string) => {
    // The employer as people name it: the shortest of the names its jobs carry ("First Supply", not "First Supply Corp").
    const names = (await rest.groups({ company_id: companyId }, 'employer')).flatMap((g) => (g.value ? [g.value] : []));
    return { companyId, name: names.sort((a, b) => a.length - b.length || a.localeCompare(b))[0] ?? companyId };
  };
  return [await named(pool[0]!.value!), await named((pool[1] ?? pool[0]!).value!)];
}

async function titled(rest: Rest, jobs: SampledJob[], rng: Rng): Promise<Sample['titled']> {
  const seen = new Map<string, number>();
  for (const j of jobs) seen.set(j.title.toLowerCase(), (seen.get(j.title.toLowerCase()) ?? 0) + 1);
  const unique = jobs.filter((j) => seen.get(j.title.toLowerCase()) === 1 && titleWords(j.title).length >= 2);
  const found = await firstAccepted(shuffled(unique, rng), async (j) => (await rest.count({ title: j.title })) <= 5);
  const job = found ?? jobs[0]!;
  return { jobId: job.job_id, title: job.title };
}

function hybrid(jobs: SampledJob[], weekAgo: string): Sample['hybrid'] {
  const recent = (j: SampledJob) => (j.postings ?? []).some((p) => (p.posted_at ?? '') >= weekAgo);
  const places = (only: (j: SampledJob) => boolean) =>
    jobs
      .filter((j) => j.work_arrangement === 'hybrid' && only(j))
      .flatMap((j) => (j.locations ?? []).flatMap((l) => (l.city && l.country ? [`${l.city}|${l.country}`] : [])));
  const [city, country] = (mostFrequent(places(recent)) ?? mostFrequent(places(() => true)) ?? 'London|GB').split('|');
  return { city: city!, country: country! };
}

function booleanWords(jobs: SampledJob[]): Sample['boolean'] {
  const words = jobs.flatMap((j) => titleWords(j.title));
  const roles = words.filter((w) => w.length > 3 && !LEVELS.has(w) && !['and', 'with'].includes(w));
  const first = mostFrequent(roles) ?? 'engineer';
  const second = mostFrequent(roles.filter((w) => w !== first)) ?? 'manager';
  const not = mostFrequent(words.filter((w) => ['senior', 'lead', 'junior'].includes(w))) ?? 'senior';
  return { either: [first, second], not };
}

function currency(jobs: SampledJob[]): Sample['currency'] {
  const pairs: { key: string; floor: number }[] = [];
  for (const job of jobs) {
    const country = job.locations?.[0]?.country;
    for (const p of job.postings ?? []) {
      const floor = annualFloor(p.pay);
      if (country && p.pay && p.pay.currency !== 'USD' && floor) pairs.push({ key: `${country}|${p.pay.currency}`, floor });
    }
  }
  const key = mostFrequent(pairs.map((p) => p.key)) ?? 'DE|EUR';
  const floors = pairs.filter((p) => p.key === key).map((p) => p.floor);
  floors.sort((a, b) => a - b);
  const [country, code] = key.split('|');
  return { country: country!, currency: code!, amount: roundDown(floors[Math.floor(floors.length / 2)] ?? 40_000, 5_000) };
}

/** The sample of `seed`: the first 1,000 current jobs (newest first) and a few counts. */
export async function sampleCatalog(rest: Rest, seed: number): Promise<Sample> {
  const rng = new Rng(seed, 22);
  const { snapshot_watermark: watermark } = await rest.get<{ snapshot_watermark: string }>('/v1/jobs/count');
  const today = day(watermark, 0);
  const weekAgo = day(watermark, 7);
  const fields = ['title', 'work_arrangement', 'locations', 'postings'];
  const jobs = await rest.jobs<SampledJob>({}, fields, 1000);
  const remote = await remotePay(rest, jobs, rng);
  const [employer, sync] = await companies(rest, rng);
  const nurseStates = (await rest.groups({ title: 'nurse', has_pay: true, country: 'US' }, 'state')).flatMap((g) => usState(g.value) ?? []);
  const partTime = (await rest.groups({ employment_type: 'part-time', country: 'US' }, 'state')).flatMap((g) => usState(g.value) ?? []);
  const largest = new Set((await rest.groups({ country: 'US' }, 'state')).flatMap((g) => usState(g.value) ?? []));
  const words = booleanWords(jobs);
  const phrase = words.either[0];
  // A state without a job, so that the agent can say why nothing matches; else one without a job of that title.
  const states = shuffled(US_STATES, rng);
  const bare = await firstAccepted(
    states.filter((state) => !largest.has(state)),
    async (state) => (await rest.count({ state })) === 0,
  );
  const empty = bare ?? (await firstAccepted(states, async (state) => (await rest.count({ title: phrase, state })) === 0, 15));
  const applicable = jobs.filter((j) => (j.postings ?? []).some((p) => p.application_url));
  const [country] = (await rest.groups({}, 'country')).flatMap((g) => (g.value ? [g.value] : []));
  return {
    watermark,
    today,
    yesterday: day(watermark, 1),
    weekAgo,
    remotePay: remote,
    newest: { phrase: 'nurse', state: nurseStates[0] ?? 'CA' },
    employer,
    sync,
    titled: await titled(rest, jobs, rng),
    applyJobId: (applicable.length > 0 ? rng.pick(applicable) : jobs[0]!).job_id,
    saveRead: { country: country ?? 'US', save: 300, nth: 250 },
    hybrid: hybrid(jobs, weekAgo),
    boolean: words,
    nothing: { phrase, state: empty ?? 'WY' },
    currency: currency(jobs),
    partTimeState: partTime.length > 0 ? rng.pick(partTime.slice(0, 3)) : 'CA',
  };
}

const STATE_NAMES: Record<string, string> = {
  AL: 'Alabama',
  AK: 'Alaska',
  AZ: 'Arizona',
  AR: 'Arkansas',
  CA: 'California',
  CO: 'Colorado',
  CT: 'Connecticut',
  DE: 'Delaware',
  DC: 'the District of Columbia',
  FL: 'Florida',
  GA: 'Georgia',
  HI: 'Hawaii',
  ID: 'Idaho',
  IL: 'Illinois',
  IN: 'Indiana',
  IA: 'Iowa',
  KS: 'Kansas',
  KY: 'Kentucky',
  LA: 'Louisiana',
  ME: 'Maine',
  MD: 'Maryland',
  MA: 'Massachusetts',
  MI: 'Michigan',
  MN: 'Minnesota',
  MS: 'Mississippi',
  MO: 'Missouri',
  MT: 'Montana',
  NE: 'Nebraska',
  NV: 'Nevada',
  NH: 'New Hampshire',
  NJ: 'New Jersey',
  NM: 'New Mexico',
  NY: 'New York',
  NC: 'North Carolina',
  ND: 'North Dakota',
  OH: 'Ohio',
  OK: 'Oklahoma',
  OR: 'Oregon',
  PA: 'Pennsylvania',
  RI: 'Rhode Island',
  SC: 'South Carolina',
  SD: 'South Dakota',
  TN: 'Tennessee',
  TX: 'Texas',
  UT: 'Utah',
  VT: 'Vermont',
  VA: 'Virginia',
  WA: 'Washington',
  WV: 'West Virginia',
  WI: 'Wisconsin',
  WY: 'Wyoming',
};

/** How a person names a U.S. state in a question: "Texas" for TX. */
export const stateName = (code: string) => STATE_NAMES[code] ?? code;
/** How a person names a country: "Germany" for DE. */
export const countryName = (code: string) => new Intl.DisplayNames(['en'], { type: 'region' }).of(code) ?? code;
/** An amount as a person writes it: "€45,000". */
export const money = (amount: number, code: string) =>
  new Intl.NumberFormat('en-US', { style: 'currency', currency: code, maximumFractionDigits: 0 }).format(amount);
