// The work a generation splits up: the postings of a range of openings on one day, a day's withdrawals, a day's registry.

import { SOURCES } from '../reference/sources.js';
import { HOUR_MS, iso } from './calendar.js';
import { OpeningState } from './opening-state.js';
import { STREAM } from './options.js';
import { buildPosting } from './posting.js';
import { Rng } from './random.js';
import { Boards } from './reads.js';
import { postingJson } from './serialise.js';
import type { World } from './world.js';

export interface SourceChunk {
  source: number;
  rows: number;
  data: Uint8Array;
}

export interface BatchResult {
  chunks: SourceChunk[];
  /** "source|board" of every board this batch saw, one a line, and how many of its postings each listed: two flat
   * values rather than an array of tuples, because the main thread decodes thousands of them per batch. */
  boardKeys: string;
  boardCounts: Int32Array;
  postings: number;
}

/** UTF-8 lines written into a buffer of their own (never the shared pool, so it can be transferred) as soon as each is
 * made: holding a batch of strings until the end lets them age into the old generation, where collecting them is dear. */
class ByteSink {
  private buffer = Buffer.allocUnsafeSlow(1 << 20);
  length = 0;
  rows = 0;

  write(line: string): void {
    if (this.length + line.length * 3 > this.buffer.length) {
      const larger = Buffer.allocUnsafeSlow(Math.max(this.buffer.length * 2, this.length + line.length * 3));
      this.buffer.copy(larger, 0, 0, this.length);
      this.buffer = larger;
    }
    this.length += this.buffer.write(line, this.length, 'utf8');
    this.rows += 1;
  }

  bytes(): Uint8Array {
    return this.buffer.subarray(0, this.length);
  }
}

/** The JSON lines of every posting of the openings at positions from..to-1 of the day's order that its board's read
 * returned on `day`, grouped by source; with `boardsOnly`, only the boards and their counts (no posting is built). */
export function renderBatch(world: World, boards: Boards, day: number, from: number, to: number, boardsOnly = false): BatchResult {
  const order = world.dayOrder(day);
  const sinks = new Map<number, ByteSink>();
  const counts = new Map<string, number>();
  let postings = 0;
  for (let position = from; position < to; position += 1) {
    const index = order[position]!;
    const state = new OpeningState(world, index);
    for (const slot of state.listed(day)) {
      const board = boards.get(slot.source, state.board(slot, day).name, day);
      if (!boards.returns(board, day, index, slot.slot)) continue;
      counts.set(board.key, (counts.get(board.key) ?? 0) + 1);
      postings += 1;
      if (boardsOnly) continue;
      let sink = sinks.get(slot.source);
      if (!sink) sinks.set(slot.source, (sink = new ByteSink()));
      sink.write(`${postingJson(buildPosting(state, slot, day).posting)}\n`);
    }
  }
  const chunks = [...sinks.entries()].sort(([a], [b]) => a - b).map(([source, sink]) => ({ source, rows: sink.rows, data: sink.bytes() }));
  return { chunks, boardKeys: [...counts.keys()].join('\n'), boardCounts: Int32Array.from(counts.values()), postings };
}

/** A few spam or takedown requests naming postings delivered on `day`. */
export function withdrawalLines(world: World, day: number): string[] {
  const boards = new Boards(world.options.seed);
  const rng = new Rng(world.options.seed, STREAM.day, day, 2);
  const wanted = 2 + Math.floor(world.options.jobs / 40_000) + rng.int(3);
  const end = world.openings.firstIndex[day + 1]!;
  const lines: string[] = [];
  const seen = new Set<string>();
  for (let tries = 0; lines.length < wanted && tries < wanted * 50; tries += 1) {
    const state = new OpeningState(world, rng.int(end));
    const listed = state.listed(day);
    if (listed.length === 0) continue;
    const slot = listed[rng.int(listed.length)]!;
    const source = SOURCES[slot.source]!;
    if (!boards.returns(boards.get(slot.source, state.board(slot, day).name, day), day, state.index, slot.slot)) continue;
    const id = buildPosting(state, slot, day).posting.source_posting_id;
    if (seen.has(`${source.name}|${id}`)) continue;
    seen.add(`${source.name}|${id}`);
    const spam = ['aggregator', 'unknown', 'purchased'].includes(source.class) && rng.chance(0.6);
    // A request names a posting someone saw: never before the collectors first did.
    const requested = Math.max(world.calendar.cutoff(day) - (1 + rng.float() * 20) * HOUR_MS, state.firstSeen(slot, day) + 10 * 60_000);
    lines.push(
      JSON.stringify({ source: source.name, source_posting_id: id, reason: spam ? 'spam' : 'takedown', requested_at: iso(requested) }),
    );
  }
  return lines;
}

export function registryLines(world: World, day: number): string[] {
  return [...world.registry.records(day)].map((record) => JSON.stringify(record));
}
