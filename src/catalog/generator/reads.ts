// Source reads of a day: one per board, complete or partial, with the number of postings it listed and when it ran.

import { SOURCES } from '../reference/sources.js';
import { HOUR_MS, iso, type Calendar } from './calendar.js';
import { RATES } from './options.js';
import { hashFloat, hashString } from './random.js';

export interface Board {
  key: string;
  source: number;
  board: string;
  hash: number;
  /** Day the partial-read decision below belongs to. */
  day: number;
  /** Share of the board's postings the read returns: 1 for a complete read. */
  fraction: number;
  listed: number;
}

/** The hash that names a board in every per-board decision ("source index|board"). */
export function boardHash(source: number, board: string): number {
  return hashString(`${source}|${board}`);
}

/** When the read of a board on `day` began: each board at its own hour, between 23 and 3 hours before the cut-off. A
 * posting is listed by the read only when it was up by then; days before 1 are the collectors' history. */
export function readStartedAt(seed: number, calendar: Calendar, day: number, hash: number): number {
  return calendar.cutoff(day) - 23 * HOUR_MS + hashFloat(seed, day, hash, 44) * 20 * HOUR_MS;
}

/** Whether the board's collector cannot read it completely on `day`: a stalled board has been read only partly for
 * weeks before day 1 and recovers on a day of its own. */
export function isStalled(seed: number, hash: number, day: number): boolean {
  return hashFloat(seed, hash, 46) < RATES.stalledBoards && day < 2 + Math.floor(hashFloat(seed, hash, 47) * RATES.stalledRecoveryDays);
}

/** Share of the board's postings its read of `day` returns: 1 for a complete read; a stalled board's reads return most. */
export function readFraction(seed: number, day: number, hash: number): number {
  if (isStalled(seed, hash, day)) return 0.8 + 0.19 * hashFloat(seed, day, hash, 42);
  return hashFloat(seed, day, hash, 41) < RATES.partialReads ? 0.3 + 0.6 * hashFloat(seed, day, hash, 42) : 1;
}

/** Whether a read returning `fraction` of its board returns this posting of the opening's slot. */
export function readReturns(seed: number, fraction: number, day: number, index: number, slot: number): boolean {
  return fraction >= 1 || hashFloat(seed, day, index, slot, 43) < fraction;
}

/** Every board ever read in the generation, by "source|board"; a known board is read every day, even when it lists nothing. */
export class Boards {
  private readonly boards = new Map<string, Board>();

  constructor(private readonly seed: number) {}

  get(source: number, board: string, day: number): Board {
    return this.byKey(`${source}|${board}`, day);
  }

  /** The board of a "source|board" key. */
  byKey(key: string, day: number): Board {
    let entry = this.boards.get(key);
    if (!entry) {
      const bar = key.indexOf('|');
      entry = { key, source: Number(key.slice(0, bar)), board: key.slice(bar + 1), hash: hashString(key), day: 0, fraction: 1, listed: 0 };
      this.boards.set(key, entry);
    }
    if (entry.day !== day) this.startDay(entry, day);
    return entry;
  }

  private startDay(entry: Board, day: number): void {
    entry.day = day;
    entry.listed = 0;
    entry.fraction = readFraction(this.seed, day, entry.hash);
  }

  /** Whether a partial read of the board returns this posting today. */
  returns(entry: Board, day: number, index: number, slot: number): boolean {
    return readReturns(this.seed, entry.fraction, day, index, slot);
  }

  /** The day's read lines, ordered by source then board. */
  lines(day: number, calendar: Calendar): string[] {
    const entries = [...this.boards.values()].sort((a, b) => a.source - b.source || (a.board < b.board ? -1 : a.board > b.board ? 1 : 0));
    return entries.map((entry) => {
      if (entry.day !== day) this.startDay(entry, day);
      const started = readStartedAt(this.seed, calendar, day, entry.hash);
      const finished = started + 1500 + entry.listed * 40 + hashFloat(this.seed, day, entry.hash, 45) * 60_000;
      const source = SOURCES[entry.source]!;
      return JSON.stringify({
        source: source.name,
        board: entry.board,
        source_class: source.class,
        started_at: iso(started),
        finished_at: iso(finished),
        complete: entry.fraction >= 1,
        listed: entry.listed,
      });
    });
  }
}
