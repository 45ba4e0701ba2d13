// One opening as of one day: its facts, timeline and posting slots, and the canonical description of each edit version.

import { SOURCES } from '../reference/sources.js';
import { contentOf, type Content } from './content.js';
import { DAY_MS, HOUR_MS } from './calendar.js';
import { canonicalBlocks, textContext, type Block, type TextContext } from './description.js';
import { raisedPay } from './pay.js';
import { isListed, planOf, type Slot } from './plan.js';
import { boardOf, boardSince } from './boards.js';
import { boardHash, readFraction, readReturns, readStartedAt } from './reads.js';
import { timelineOf, type Timeline } from './timeline.js';
import { editedTitle } from './titles.js';
import type { World } from './world.js';

export class Version {
  private readonly renders = new Map<string, string>();

  constructor(
    readonly ctx: TextContext,
    readonly blocks: Block[],
  ) {}

  /** The canonical blocks rendered one way, kept for the other copies that show them unchanged. */
  rendered(key: string, render: () => string): string {
    let text = this.renders.get(key);
    if (text === undefined) {
      text = render();
      this.renders.set(key, text);
    }
    return text;
  }
}

interface SlotBoard {
  day: number;
  name: string;
  hash: number;
}

/** The sources that are the employer's own. */
const EMPLOYER_CLASSES = new Set(['ats', 'employer-site']);

export class OpeningState {
  readonly content: Content;
  readonly timeline: Timeline;
  readonly slots: Slot[];
  private readonly versions = new Map<number, Version>();
  private readonly boards: (SlotBoard | undefined)[] = [];

  constructor(
    readonly world: World,
    readonly index: number,
  ) {
    const { options, openings, companies, calendar } = world;
    const company = companies.list[openings.company[index]!]!;
    this.timeline = timelineOf(options.seed, index, openings.startDay[index]!, calendar);
    this.content = contentOf(options.seed, index, company, openings.occupation[index]!, openings.variant[index]!);
    const government = company.industry.government === true || this.content.occupation.sector === 'government';
    this.slots = planOf(options.seed, index, this.timeline, company, this.content.place.country, government, calendar);
  }

  /** The slots whose postings their sources list on `day`: up when the read of their board began. */
  listed(day: number): Slot[] {
    return this.slots.filter((slot) => isListed(slot, day, this.world.calendar) && this.upAtRead(slot.appear, slot, day));
  }

  /**
   * Whether the employer's own ATS or careers page lists the opening on `day` (a posting of theirs up at
   * its board's read), or null when none of theirs was up at a read from day 1 to `day` (the catalog
   * has not seen the employer list it): truth for listed_by_employer.
   */
  listedByEmployer(day: number): boolean | null {
    const own = this.slots.filter((slot) => EMPLOYER_CLASSES.has(SOURCES[slot.source]!.class));
    const upOn = (slot: Slot, d: number) => isListed(slot, d, this.world.calendar) && this.upAtRead(slot.appear, slot, d);
    if (!own.some((slot) => Array.from({ length: day }, (_, d) => d + 1).some((d) => upOn(slot, d)))) return null;
    return own.some((slot) => upOn(slot, day));
  }

  /** Times the collectors could see the opening taken down and posted again by `day` (its first posting under a new id,
   * after a read of day 1 or later returned the old one): truth for reposts. */
  reposts(day: number): number {
    const first = this.slots[0]!;
    return this.generation(first, day) === 1 && this.generation(first, 1) === 0 ? 1 : 0;
  }

  /** The board the slot's source lists it on for `day`, and that board's hash. */
  board(slot: Slot, day: number): SlotBoard {
    let board = this.boards[slot.slot];
    if (board?.day !== day) {
      const name = boardOf(SOURCES[slot.source]!, this.content.company, this.world.calendar.date(day));
      board = { day, name, hash: boardHash(slot.source, name) };
      this.boards[slot.slot] = board;
    }
    return board;
  }

  /** Whether a posting of the slot up from `at` was up when the read of its board on `day` began (reads begin 23 to
   * 3 hours before the cut-off, so most postings need no look at the board). */
  private upAtRead(at: number, slot: Slot, day: number): boolean {
    const cutoff = this.world.calendar.cutoff(day);
    if (at < cutoff - 23 * HOUR_MS) return true;
    return at < cutoff && at < readStartedAt(this.world.options.seed, this.world.calendar, day, this.board(slot, day).hash);
  }

  /** When the collectors first saw the posting the slot's source lists on `day`: the first read of its board that began
   * after the posting appeared and returned it. For the day-1 backlog that read is in the collectors' history. */
  firstSeen(slot: Slot, day: number): number {
    const { options, calendar } = this.world;
    const { hash } = this.board(slot, day);
    const appear = this.generation(slot, day) > 0 ? this.timeline.repostAt : slot.appear;
    let first = Math.max(calendar.firstDayAfter(appear), boardSince(SOURCES[slot.source]!, day, calendar));
    if (readStartedAt(options.seed, calendar, first, hash) <= appear) first += 1;
    while (first < day && !readReturns(options.seed, readFraction(options.seed, first, hash), first, this.index, slot.slot)) first += 1;
    return readStartedAt(options.seed, calendar, first, hash);
  }

  /** Number of edits a slot has picked up by the cut-off of `day`. */
  versionOf(slot: Slot, day: number): number {
    const cutoff = this.world.calendar.cutoff(day);
    return this.timeline.edits.filter((edit) => edit.at + slot.lag * DAY_MS < cutoff).length;
  }

  /** 1 once the employer's own posting was taken down and posted again under a new id before its board's read of `day`. */
  generation(slot: Slot, day: number): number {
    return slot.slot === 0 && EMPLOYER_CLASSES.has(SOURCES[slot.source]!.class) && this.upAtRead(this.timeline.repostAt, slot, day) ? 1 : 0;
  }

  version(v: number): Version {
    let version = this.versions.get(v);
    if (!version) {
      const applied = this.timeline.edits.slice(0, v);
      const count = (kind: string) => applied.filter((e) => e.kind === kind).length;
      let pay = this.content.pay;
      for (let k = 0; k < count('pay'); k += 1) pay = raisedPay(pay);
      const ctx = textContext(this.content, editedTitle(this.content, count('title')), pay, count('add') - count('remove'));
      version = new Version(ctx, canonicalBlocks(ctx));
      this.versions.set(v, version);
    }
    return version;
  }
}
