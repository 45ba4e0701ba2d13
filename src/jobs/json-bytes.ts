// Answers spliced as bytes: job documents and feed events go from their files to the socket (and into
// export and MCP files) as the UTF-8 bytes the files hold, never decoded into strings. A page built as
// one string of 150 KB or more (3 MB for 1,000 events) was a fresh large-object allocation each time,
// paid twice (the join, then the hash of its ETag): ADR 0013.

/**
 * work_arrangement is absent when the source does not say (spec 2.1); the documents file writes null.
 * The key and its null are exactly this text at the top level (inside a JSON string a quote is escaped).
 */
const UNSTATED_ARRANGEMENT = Buffer.from('"work_arrangement":null,');

/** A job (or an event's job) without its unstated work_arrangement. */
export function withoutUnstatedArrangement(line: Buffer): Buffer {
  const at = line.indexOf(UNSTATED_ARRANGEMENT);
  return at === -1 ? line : Buffer.concat([line.subarray(0, at), line.subarray(at + UNSTATED_ARRANGEMENT.length)]);
}

const DATA = Buffer.from('{"data":');
const DATA_LIST = Buffer.from('{"data":[');
const COMMA = Buffer.from(',');
const NEWLINE = Buffer.from('\n');

/** `{"data":item` and the rest of `tail` (a JSON object's text): one job as the API answers it. */
export function jsonItem(item: Buffer, tail: string): Buffer {
  return Buffer.concat([DATA, item, Buffer.from(`,${tail.slice(1)}`)]);
}

/** `{"data":[items...]` and the rest of `tail` (a JSON object's text): a page of jobs or events. */
export function jsonList(items: Buffer[], tail: string): Buffer {
  return Buffer.concat([DATA_LIST, ...items.flatMap((item, i) => (i === 0 ? [item] : [COMMA, item])), Buffer.from(`],${tail.slice(1)}`)]);
}

/** The lines as JSON Lines: each followed by a line end. */
export function jsonLines(lines: Buffer[]): Buffer {
  return Buffer.concat(lines.flatMap((line) => [line, NEWLINE]));
}
