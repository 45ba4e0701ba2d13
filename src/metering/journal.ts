// The meter journal (ADR 0013, "The journal"): on the embedded store, a request settled in memory from
// its account's lease is appended here with one write(2) before its answer's first byte, and settled in
// the store by a later batch. A batch records in the same transaction how far the journal is settled
// (meter_settle_journaled), so at the next start exactly the lines past that position are settled, once.
// The journal is as durable as the embedded store itself: both reach the operating system's cache, not
// the disk, and survive kill -9 of the process.
//
// Files are data/meter-journal/<seq>.jsonl, one JSON object a line (meter_settle_leased's arguments by
// name). A file is replaced by the next once it is large and settled to its end.

import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { StateStore } from '../db/state-store.js';

/** The one journal of a data folder, as meter_journal names it. */
export const JOURNAL = 'meter';
/** A file past this size, settled to its end, is replaced by the next. */
const ROTATE_BYTES = 16 * 1024 * 1024;
/** Lines settled in one call of the store when a journal is replayed. */
const REPLAY_BATCH = 256;

const SETTLE = 'SELECT * FROM meter_settle_journaled($1::jsonb, $2, $3, $4)';

/** meter_settle_counted's arrays, one a column of the rows (arguments by name), and their types. */
const COUNTED_COLUMNS: Array<[string, string]> = [
  ['p_request', 'text'],
  ['p_account', 'text'],
  ['p_key', 'text'],
  ['p_at', 'timestamptz'],
  ['p_method', 'text'],
  ['p_route', 'text'],
  ['p_class', 'text'],
  ['p_node', 'text'],
  ['p_window', 'timestamptz'],
  ['p_month', 'date'],
  ['p_status', 'integer'],
  ['p_records', 'bigint'],
  ['p_allowance', 'bigint'],
  ['p_force', 'boolean'],
  ['p_void', 'boolean'],
];
const COUNTED = `SELECT meter_settle_counted(${COUNTED_COLUMNS.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ')}, $${
  COUNTED_COLUMNS.length + 1
}, $${COUNTED_COLUMNS.length + 2}, $${COUNTED_COLUMNS.length + 3}) AS written`;

/** Where a line ends: its file and the byte after it. */
export interface JournalPosition {
  seq: number;
  position: number;
}

export interface JournalRow {
  i: number;
  outcome: string;
  charged: boolean;
}

/** The journal's folder in a data folder. */
export const journalDir = (dataDir: string): string => join(dataDir, 'meter-journal');

/** What replayJournal settled: lines (refused: those the store settled otherwise), and the next journal's seq. */
export interface JournalReplay {
  lines: number;
  refused: number;
  nextSeq: number;
}

const fileName = (seq: number): string => `${String(seq).padStart(12, '0')}.jsonl`;

/** The journal's files in `dir`, by seq, oldest first. */
function journalFiles(dir: string): number[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return names
    .map((name) => /^(\d{12})\.jsonl$/.exec(name)?.[1])
    .filter((seq): seq is string => seq !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

/** One call of the store: `rows` (arguments by name) settled in order, the journal settled up to `at`. */
export function settleJournaled<R extends JournalRow>(
  store: Pick<StateStore, 'query'>,
  rows: Array<Record<string, unknown>>,
  at: JournalPosition | undefined,
): Promise<R[]> {
  return store.query<R>(SETTLE, [JSON.stringify(rows.map((row, i) => ({ ...row, i }))), JOURNAL, at?.seq ?? null, at?.position ?? null]);
}

/**
 * One call of the store for a batch of journaled settlements alone: settled as in memory (ADR 0013,
 * "Journaled batches counted, not joined") when meter_settle_counted finds every row settles so, and the
 * journal settled up to `at`. False: nothing was written; settle the batch by settleJournaled.
 */
export async function settleCounted(
  store: Pick<StateStore, 'query'>,
  rows: Array<Record<string, unknown>>,
  at: JournalPosition | undefined,
): Promise<boolean> {
  const columns = COUNTED_COLUMNS.map(([name]) =>
    rows.map((row) => (row[name] instanceof Date ? row[name].toISOString() : (row[name] ?? null))),
  );
  const [answer] = await store.query<{ written: string | number | null }>(COUNTED, [
    ...columns,
    JOURNAL,
    at?.seq ?? null,
    at?.position ?? null,
  ]);
  if (answer?.written === null || answer?.written === undefined) return false;
  if (Number(answer.written) !== rows.length) throw new Error(`meter_settle_counted wrote ${answer.written} of ${rows.length} rows`);
  return true;
}

/**
 * Settles in the store what the journal in `dir` holds past the position the store has (a server
 * stopped by kill -9 or a crash), then removes the journal's files. Returns the lines settled and the
 * seq the next journal starts with. Run before anything else uses the store.
 */
export async function replayJournal(store: StateStore, dir: string): Promise<JournalReplay> {
  const [stored] = await store.query<{ seq: string; position: string }>('SELECT seq, position FROM meter_journal WHERE journal = $1', [
    JOURNAL,
  ]);
  const from = stored ? { seq: Number(stored.seq), position: Number(stored.position) } : { seq: 0, position: 0 };
  const seqs = journalFiles(dir);
  let lines = 0;
  let refused = 0;
  for (const seq of seqs) {
    if (seq < from.seq) continue;
    const bytes = readFileSync(join(dir, fileName(seq)));
    let start = seq === from.seq ? from.position : 0;
    let batch: Array<Record<string, unknown>> = [];
    const flush = async (at: JournalPosition): Promise<void> => {
      if (!(await settleCounted(store, batch, at))) {
        const rows = await settleJournaled(store, batch, at);
        refused += rows.filter((row) => row.outcome !== 'admitted' || !row.charged).length;
      }
      lines += batch.length;
      batch = [];
    };
    for (;;) {
      const end = bytes.indexOf(0x0a, start);
      // A line cut short was being written when the process stopped: its answer was never sent.
      if (end < 0) break;
      batch.push(JSON.parse(bytes.subarray(start, end).toString('utf8')) as Record<string, unknown>);
      start = end + 1;
      if (batch.length === REPLAY_BATCH) await flush({ seq, position: start });
    }
    if (batch.length > 0) await flush({ seq, position: start });
  }
  for (const seq of seqs) unlinkSync(join(dir, fileName(seq)));
  return { lines, refused, nextSeq: Math.max(from.seq, seqs.at(-1) ?? 0) + 1 };
}

/** The journal a server appends to, from `seq` on (replayJournal's nextSeq). */
export class MeterJournal {
  private fd: number;
  private position = 0;

  constructor(
    private readonly dir: string,
    private seq: number,
    private readonly rotateBytes = ROTATE_BYTES,
  ) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.fd = this.openFile();
  }

  private openFile(): number {
    return openSync(join(this.dir, fileName(this.seq)), 'a', 0o600);
  }

  /** Appends one line: in the operating system's hands when this returns. */
  append(line: Record<string, unknown>): JournalPosition {
    const bytes = Buffer.from(`${JSON.stringify(line)}\n`, 'utf8');
    let written = 0;
    while (written < bytes.length) written += writeSync(this.fd, bytes, written);
    this.position += bytes.length;
    return { seq: this.seq, position: this.position };
  }

  /** A batch settled the journal up to `at`: a large file settled to its end is replaced by the next. */
  settled(at: JournalPosition): void {
    if (at.seq !== this.seq || at.position !== this.position || this.position < this.rotateBytes) return;
    closeSync(this.fd);
    unlinkSync(join(this.dir, fileName(this.seq)));
    this.seq++;
    this.position = 0;
    this.fd = this.openFile();
  }

  close(): void {
    closeSync(this.fd);
  }
}
