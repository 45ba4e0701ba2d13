// The life of one opening: when it was posted, edited, reposted and closed, drawn from its own seed.

import { DAY_MS, HOUR_MS, type Calendar } from './calendar.js';
import { RATES, STREAM } from './options.js';
import { Rng } from './random.js';

export type EditKind = 'title' | 'add' | 'remove' | 'pay';

export interface Edit {
  at: number;
  kind: EditKind;
}

export interface Timeline {
  posted: number;
  /** First day the opening is closed: its first posting is gone from complete reads from then on (give or take a day);
   * 1 or less for a day-1 opening that closed before day 1 and is listed only by a copy that lingers. */
  closeDay: number;
  closedAt: number;
  /** When the ATS posting was taken down and posted again under a new id; Infinity when never. */
  repostAt: number;
  edits: Edit[];
  lateDuplicate: boolean;
}

const EDIT_KINDS: EditKind[] = ['title', 'add', 'remove', 'pay'];

/** A day-1 opening: posted up to `backlogMaxAgeDays` before day 1; a few closed in the five days before it. */
function backlogOf(rng: Rng, calendar: Calendar): { posted: number; closeDay: number } {
  let age = rng.geometric(RATES.backlogAgePerDay) - 1;
  if (age > RATES.backlogMaxAgeDays) age = rng.int(RATES.backlogMaxAgeDays + 1);
  const posted = calendar.cutoff(1) - age * DAY_MS - (1 + rng.float() * 22) * HOUR_MS;
  const closedAgo = rng.int(5);
  // Closed long enough after it was posted for its copies (up to 3 days 20 hours later) to have appeared.
  const closedEarly = rng.chance(RATES.backlogClosed) && age >= closedAgo + 5;
  return { posted, closeDay: closedEarly ? 1 - closedAgo : 1 + rng.geometric(RATES.closuresPerDay) };
}

export function timelineOf(seed: number, index: number, startDay: number, calendar: Calendar): Timeline {
  const rng = new Rng(seed, STREAM.timeline, index);
  let posted: number;
  let closeDay: number;
  if (startDay === 1) {
    ({ posted, closeDay } = backlogOf(rng, calendar));
  } else {
    posted = calendar.cutoff(startDay - 1) + (0.5 + rng.float() * 23) * HOUR_MS;
    closeDay = startDay + rng.geometric(RATES.closuresPerDay);
  }
  const closedAt = calendar.cutoff(closeDay - 1) + rng.float() * DAY_MS * 0.9;
  const reposted = rng.chance(RATES.reposts) ? posted + (7 + rng.int(40)) * DAY_MS + rng.float() * DAY_MS : Infinity;
  const edits: Edit[] = [];
  let at = posted;
  for (let k = 0; k < 2; k += 1) {
    at += rng.geometric(RATES.editsPerDay) * DAY_MS + rng.float() * DAY_MS;
    if (at < closedAt) edits.push({ at, kind: rng.pick(EDIT_KINDS) });
  }
  const lateDuplicate = rng.chance(RATES.lateDuplicates) && closeDay > 1;
  return { posted, closeDay, closedAt, repostAt: reposted < closedAt ? reposted : Infinity, edits, lateDuplicate };
}
