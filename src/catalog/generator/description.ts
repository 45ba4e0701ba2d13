// Job descriptions: an opening's canonical blocks, and how copies reword, reorder, drop, truncate and mark them up.

import {
  ABOUT,
  BENEFIT_LINES,
  CLOSING,
  EEO,
  HEADINGS,
  INTRO,
  REGIONS,
  REQUIREMENTS,
  RESPONSIBILITIES,
  SITE,
  SKILLS,
  SUMMARY,
  TEAM,
} from '../reference/phrases.js';
import { countryRef } from '../reference/gazetteer.js';
import { canonicalSkill } from '../reference/skills.js';
import type { Content } from './content.js';
import { payText, type Pay } from './pay.js';
import { Rng } from './random.js';
import { compileAll, fill, markedList, PERKS, markedSkills, markSkills, unmarked, type Template } from './text.js';

export type Section = 'intro' | 'about' | 'resp' | 'req' | 'skills' | 'pay' | 'benefits' | 'eeo' | 'closing';

export interface Block {
  section: Section;
  heading: string | null;
  list: boolean;
  items: string[];
}

const T = {
  intro: compileAll(INTRO),
  team: compileAll(TEAM),
  site: compileAll(SITE),
  summary: compileAll(SUMMARY),
  about: compileAll(ABOUT),
  resp: compileAll(RESPONSIBILITIES.filter((t) => !t.includes('{Duty}'))),
  req: compileAll(REQUIREMENTS.slice(1)),
  years: compileAll(REQUIREMENTS.slice(0, 1)),
  skills: compileAll(SKILLS),
  benefits: compileAll(BENEFIT_LINES),
  closing: compileAll(CLOSING),
  eeo: Object.fromEntries(Object.entries(EEO).map(([k, v]) => [k, compileAll(v)])) as Record<string, Template[]>,
};
const PAY_LINES = [
  'The pay range for this role is {pay}.',
  'Compensation: {pay}.',
  'Starting pay is {pay}, based on experience.',
  'The expected salary for this position is {pay}.',
];

/** What a description is written from: the fixed words and the lists slots draw from. */
export interface TextContext {
  content: Content;
  title: string;
  pay: Pay;
  fixed: Record<string, string>;
  lists: Record<string, readonly string[]>;
  respCount: number;
}

function cityPhrase(content: Content): string {
  const city = content.place.cities[0];
  if (!city) return content.place.arrangement === 'remote' ? countryRef(content.place.country).name : content.company.hq.name;
  return city.country === 'US' ? `${city.name}, ${city.state}` : city.name;
}

export function textContext(content: Content, title: string, pay: Pay, respDelta: number): TextContext {
  const { company, occupation, sector } = content;
  const seed = company.seed;
  const founded = 1900 + (seed % 120);
  return {
    content,
    title,
    pay,
    // The phrases that describe the role name its skills (marked: the truth); the company, its places and
    // the shared vocabulary's filler words do not, even where they spell one.
    fixed: {
      company: company.name.base,
      title: markSkills(title),
      base: markSkills(occupation.title),
      team: markSkills(content.team),
      focus: markSkills(content.focus),
      site: content.site,
      unit: markSkills(content.unit ?? ''),
      city: cityPhrase(content),
      dept: markSkills(sector.department),
      industry: company.industry.name.toLowerCase(),
      hq: company.hq.name,
      region: REGIONS[seed % REGIONS.length]!,
      year: String(founded),
      decades: String(Math.max(2, Math.floor((2026 - founded) / 10) * 10)),
      count: String(50 + (seed % 40) * 75).replace(/\B(?=(\d{3})+(?!\d))/g, ','),
      country: countryRef(content.place.country).name,
      years: content.level.years,
      edu: markSkills(sector.education),
    },
    lists: {
      duty: markedList(occupation.duties),
      sduty: markedList(sector.duties),
      req: markedList(sector.requirements),
      skill: occupation.skills,
    },
    respCount: 4 + (content.templateSeed % 3) + respDelta,
  };
}

const pick = <X>(items: readonly X[], n: number): X => items[n % items.length]!;

/** Responsibility j; `alt` > 0 rewords it the way one copy does. */
export function respItem(ctx: TextContext, j: number, alt = 0): string {
  const duties = ctx.content.occupation.duties;
  if (j < duties.length && alt === 0) return markSkills(`${duties[j]!.charAt(0).toUpperCase()}${duties[j]!.slice(1)}.`);
  const rng = new Rng(ctx.content.templateSeed, 10, j, alt);
  return fill(T.resp[rng.int(T.resp.length)]!, rng, ctx.fixed, ctx.lists);
}

export function reqItem(ctx: TextContext, j: number, alt = 0): string {
  const rng = new Rng(ctx.content.templateSeed, 20, j, alt);
  if (j === 0) return fill(T.years[0]!, rng, ctx.fixed, ctx.lists);
  return fill(T.req[rng.int(T.req.length)]!, rng, ctx.fixed, ctx.lists);
}

function sentences(templates: Template[], rng: Rng, count: number, ctx: TextContext): string[] {
  const order = rng.sample(templates.length, count);
  return order.map((k) => fill(templates[k]!, rng, ctx.fixed, ctx.lists));
}

/** A cache of two generations: when the young one fills, it becomes the old one, so entries in use survive and cold
 * ones are dropped. Text is a pure function of its key, so forgetting only costs time. */
class Memo<V> {
  private young = new Map<number | string, V>();
  private old = new Map<number | string, V>();
  constructor(private readonly limit: number) {}
  get(key: number | string, make: () => V): V {
    let value = this.young.get(key);
    if (value !== undefined) return value;
    value = this.old.get(key) ?? make();
    if (this.young.size >= this.limit) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(key, value);
    return value;
  }
}

interface OccupationText {
  summary: string[];
  resp: string[];
  req: string[];
  skills: string[] | null;
}

const MAX_RESP = 12;
const occupationMemo = new Memo<OccupationText>(20_000);
const companyMemo = new Memo<Block[]>(2_000);

/** Text shared by every opening of a company and occupation. */
function occupationText(ctx: TextContext): OccupationText {
  const seed = ctx.content.templateSeed;
  return occupationMemo.get(seed, () => ({
    summary: sentences(T.summary, new Rng(seed, 1), 1, ctx),
    resp: [],
    req: Array.from({ length: 3 + (seed % 3) }, (_, j) => (j === 0 ? '' : reqItem(ctx, j))),
    skills: seed % 10 < 6 ? ((rng) => sentences(T.skills, rng, 1 + rng.int(2), ctx))(new Rng(seed, 30)) : null,
  }));
}

function introBlock(ctx: TextContext, summary: string[]): Block {
  const { content } = ctx;
  const rng = new Rng(content.templateSeed, 1, content.index);
  const items = [
    fill(pick(T.intro, content.company.seed), rng, ctx.fixed, ctx.lists),
    fill(pick(T.team, content.company.seed >>> 3), rng, ctx.fixed, ctx.lists),
  ];
  if (content.unit) items.push(fill(pick(T.site, content.templateSeed >>> 5), rng, ctx.fixed, ctx.lists));
  items.push(...summary);
  return { section: 'intro', heading: pick(HEADINGS.role, content.company.seed >>> 7), list: false, items };
}

/** About, benefits, equal opportunity and closing: the same for every opening of a company in one country. */
function companyBlocks(ctx: TextContext): Block[] {
  const { company } = ctx.content;
  return companyMemo.get(`${company.seed}|${company.index}|${ctx.content.place.country}`, () => {
    const rng = new Rng(company.seed, 2);
    const heading = (options: readonly string[], shift: number) =>
      pick(options, company.seed >>> shift).replace('{company}', company.name.base);
    const about: Block = {
      section: 'about',
      heading: heading(HEADINGS.about, 9),
      list: false,
      items: sentences(T.about, rng, 2 + rng.int(2), ctx),
    };
    const perks = rng.sample(PERKS.length, 3 + rng.int(3)).map((k) => PERKS[k]!);
    const benefits: Block = rng.chance(0.5)
      ? {
          section: 'benefits',
          heading: heading(HEADINGS.benefits, 11),
          list: true,
          items: perks.map((p) => p.charAt(0).toUpperCase() + p.slice(1)),
        }
      : {
          section: 'benefits',
          heading: null,
          list: false,
          items: [fill(pick(T.benefits, company.seed >>> 13), rng, ctx.fixed, { benefit: perks })],
        };
    const eeo = T.eeo[company.country] ?? T.eeo.other!;
    const blocks = [
      about,
      benefits,
      { section: 'eeo' as const, heading: null, list: false, items: [fill(pick(eeo, company.seed >>> 15), rng, ctx.fixed, ctx.lists)] },
    ];
    if (company.seed % 10 < 7)
      blocks.push({
        section: 'closing',
        heading: null,
        list: false,
        items: [fill(pick(T.closing, company.seed >>> 17), rng, ctx.fixed, ctx.lists)],
      });
    return blocks;
  });
}

/** The first responsibilities of the shared list, extending it when an opening needs more than any before it. */
function responsibilities(ctx: TextContext, shared: string[]): string[] {
  const count = Math.max(2, Math.min(MAX_RESP, ctx.respCount));
  while (shared.length < count) shared.push(respItem(ctx, shared.length));
  return shared.slice(0, count);
}

export function canonicalBlocks(ctx: TextContext): Block[] {
  const { content } = ctx;
  const headings = content.company.seed >>> 19;
  const shared = occupationText(ctx);
  const req = shared.req.slice();
  req[0] = reqItem(ctx, 0);
  const [about, benefits, ...rest] = companyBlocks(ctx);
  const blocks: Block[] = [
    introBlock(ctx, shared.summary),
    about!,
    { section: 'resp', heading: pick(HEADINGS.responsibilities, headings), list: true, items: responsibilities(ctx, shared.resp) },
    { section: 'req', heading: pick(HEADINGS.requirements, headings >>> 3), list: true, items: req },
  ];
  if (shared.skills) blocks.push({ section: 'skills', heading: pick(HEADINGS.skills, headings >>> 6), list: false, items: shared.skills });
  if (ctx.pay.disclosed && content.templateSeed % 10 < 8) {
    blocks.push({
      section: 'pay',
      heading: pick(HEADINGS.pay, headings >>> 9),
      list: false,
      items: [pick(PAY_LINES, headings >>> 12).replace('{pay}', payText(ctx.pay))],
    });
  }
  blocks.push(benefits!, ...rest);
  return blocks;
}

const BOILERPLATE = new Set<Section>(['about', 'benefits', 'eeo', 'closing']);

/** A copy's blocks: boilerplate dropped, some items reworded, responsibilities reordered, each decided by the copy's own draws. */
export function copyBlocks(blocks: Block[], ctx: TextContext, rng: Rng, dropBoilerplate: number): Block[] {
  let out = rng.chance(dropBoilerplate) ? blocks.filter((b) => !BOILERPLATE.has(b.section)) : blocks;
  const reword = rng.chance(0.5) ? 1 + rng.int(2) : 0;
  const shuffle = rng.chance(0.2);
  if (reword === 0 && !shuffle) return out;
  const alt = 1 + rng.int(1000);
  out = out.map((block) => {
    if (block.section !== 'resp' && block.section !== 'req') return block;
    const items = block.items.map((item, j) =>
      j > 0 && (j + alt) % 4 < reword ? (block.section === 'resp' ? respItem(ctx, j, alt) : reqItem(ctx, j, alt)) : item,
    );
    return { ...block, items: block.section === 'resp' && shuffle ? rng.shuffle(items) : items };
  });
  return out;
}

const escapeHtml = (text: string) => (/[&<>]/.test(text) ? text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;') : text);

/** Plain text with headings and bullets; stops after the block that passes `enough` characters. */
export function renderText(blocks: Block[], bullet: string, enough = Infinity): string {
  let out = '';
  for (const b of blocks) {
    if (out.length > 0) out += '\n\n';
    if (b.heading) out += `${b.heading}\n`;
    const items = b.items.map(unmarked);
    out += b.list ? bullet + items.join(`\n${bullet}`) : items.join(' ');
    if (out.length > enough) break;
  }
  return out;
}

export function renderHtml(blocks: Block[], strongHeadings: boolean): string {
  return blocks
    .map((b) => {
      const heading = b.heading
        ? strongHeadings
          ? `<p><strong>${escapeHtml(b.heading)}</strong></p>`
          : `<h3>${escapeHtml(b.heading)}</h3>`
        : '';
      const items = b.items.map(unmarked);
      const body = b.list ? `<ul>${items.map((i) => `<li>${escapeHtml(i)}</li>`).join('')}</ul>` : `<p>${escapeHtml(items.join(' '))}</p>`;
      return heading + body;
    })
    .join('');
}

/**
 * The skills the generator wrote into a copy (its skill slots and the role's marked phrases), as the vocabulary spells them, that its text
 * still shows whole after a truncation: truth for the publisher's extraction. `text`: null when nothing was cut.
 */
export function shownSkills(blocks: Block[], text: string | null): string[] {
  const written = new Map<string, string>();
  for (const b of blocks)
    for (const item of b.items)
      for (const shown of markedSkills(item)) {
        const skill = canonicalSkill(shown);
        if (skill !== undefined && (text === null || text.includes(shown))) written.set(skill, shown);
      }
  return [...written.keys()].sort();
}

/** The first `limit` characters of a text, cut at a word boundary, with "..." as aggregators do. */
export function truncate(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const cut = text.lastIndexOf(' ', limit);
  return `${text.slice(0, cut > limit / 2 ? cut : limit).replace(/[\s,.;:-]+$/, '')}...`;
}
