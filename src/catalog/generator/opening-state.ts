// One opening as of one day: its facts, timeline and posting slots, and the canonical description of each edit version.

import { SOURCES } from '../reference/sources.js';
import { contentOf, type Content } from './content.js';
import { DAY_MS } from './calendar.js';
import { canonicalBlocks, textContext, type Block, type TextContext } from './description.js';
import { raisedPay } from './pay.js';
import { isListed, planOf, type Slot } from './plan.js';
import { timelineOf, type Timeline } from './timeline.js';
import { editedTitle } from './titles.js';
import type { World } from './world.js';

export class Version {
  private readonly renders = new Map<string, string>();

  constructor(readonly ctx: TextContext, readonly blocks: Block[]) {}

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

export class OpeningState {
  readonly content: Content;
  readonly timeline: Timeline;
  readonly slots: Slot[];
  private readonly versions = new Map<number, Version>();

  constructor(readonly world: World, readonly index: number) {
    const { options, openings, companies, calendar } = world;
    const company = companies.list[openings.company[index]!]!;
    this.timeline = timelineOf(options.seed, index, openings.startDay[index]!, calendar);
    this.content = contentOf(options.seed, index, company, openings.occupation[index]!, openings.variant[index]!);
    const government = company.industry.government === true || this.content.occupation.sector === 'government';
    this.slots = planOf(options.seed, index, this.timeline, company, this.content.place.country, government, calendar);
  }

  /** The slots whose postings their sources list on `day`. */
  listed(day: number): Slot[] {
    return this.slots.filter((slot) => isListed(slot, day, this.world.calendar));
  }

  /** Number of edits a slot has picked up by the cut-off of `day`. */
  versionOf(slot: Slot, day: number): number {
    const cutoff = this.world.calendar.cutoff(day);
    return this.timeline.edits.filter((edit) => edit.at + slot.lag * DAY_MS < cutoff).length;
  }

  generation(slot: Slot, day: number): number {
    return slot.slot === 0 && ['ats', 'employer-site'].includes(SOURCES[slot.source]!.class) && this.timeline.repostAt < this.world.calendar.cutoff(day) ? 1 : 0;
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
