// An inverted index on disk, in the serving cache: opening a snapshot the server has served before
// then reads its indexes (seconds) instead of analysing every title and description again (minutes
// at 1 M jobs). The file is derived data: written to a temporary name and renamed when complete, and
// any file that does not read back whole is ignored (and rebuilt by the caller).
//
// Layout: the magic, a 4-byte little-endian header length, the header (JSON: the document count,
// the byte length of the lexemes and of each array), the lexemes joined by "\n" (UTF-8), then each
// array's bytes; every section starts at a multiple of 8.

import { closeSync, fstatSync, openSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import type { IndexParts } from './inverted-index.js';

const MAGIC = Buffer.from('JOBSIDX1');
const ARRAYS = ['start', 'docs', 'posStart', 'positions', 'maxPositions'] as const;
type ArrayName = (typeof ARRAYS)[number];

interface Header {
  documents: number;
  termsBytes: number;
  bytes: Record<ArrayName, number>;
}

const padded = (n: number) => Math.ceil(n / 8) * 8;
const CHUNK = 1 << 28;

function writeAll(fd: number, bytes: Uint8Array): void {
  for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at, Math.min(CHUNK, bytes.length - at));
}

function readAll(fd: number, into: Uint8Array, position: number): boolean {
  for (let at = 0; at < into.length;) {
    const n = readSync(fd, into, at, Math.min(CHUNK, into.length - at), position + at);
    if (n === 0) return false;
    at += n;
  }
  return true;
}

/** Writes the index to `path` (through a temporary file, renamed when complete). */
export function writeIndexFile(path: string, parts: IndexParts): void {
  const terms = Buffer.from(parts.terms.join('\n'));
  const header: Header = {
    documents: parts.documents,
    termsBytes: terms.length,
    bytes: Object.fromEntries(ARRAYS.map((a) => [a, parts[a].byteLength])) as Record<ArrayName, number>,
  };
  const json = Buffer.from(JSON.stringify(header));
  const head = Buffer.alloc(padded(MAGIC.length + 4 + json.length));
  MAGIC.copy(head, 0);
  head.writeUInt32LE(json.length, MAGIC.length);
  json.copy(head, MAGIC.length + 4);
  const tmp = `${path}.tmp-${process.pid}`;
  const fd = openSync(tmp, 'w');
  try {
    const pad = (n: number) => writeAll(fd, new Uint8Array(padded(n) - n));
    writeAll(fd, head);
    writeAll(fd, terms);
    pad(terms.length);
    for (const name of ARRAYS) {
      const array = parts[name];
      writeAll(fd, new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
      pad(array.byteLength);
    }
  } catch (error) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(tmp, path);
}

/** The index stored at `path`, or null when there is none or it does not read back whole. */
export function readIndexFile(path: string): IndexParts | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null;
  }
  try {
    const size = fstatSync(fd).size;
    const prefix = Buffer.alloc(MAGIC.length + 4);
    if (!readAll(fd, prefix, 0) || !prefix.subarray(0, MAGIC.length).equals(MAGIC)) return null;
    const jsonLength = prefix.readUInt32LE(MAGIC.length);
    const json = Buffer.alloc(jsonLength);
    if (!readAll(fd, json, prefix.length)) return null;
    const header = JSON.parse(json.toString()) as Header;
    let at = padded(prefix.length + jsonLength);
    const expected = at + padded(header.termsBytes) + ARRAYS.reduce((sum, a) => sum + padded(header.bytes[a]), 0);
    if (expected !== size) return null;
    const terms = Buffer.alloc(header.termsBytes);
    if (!readAll(fd, terms, at)) return null;
    at += padded(header.termsBytes);
    const arrays = {} as Record<ArrayName, Uint8Array>;
    for (const name of ARRAYS) {
      const bytes = new Uint8Array(header.bytes[name]);
      if (!readAll(fd, bytes, at)) return null;
      arrays[name] = bytes;
      at += padded(header.bytes[name]);
    }
    return {
      documents: header.documents,
      terms: header.termsBytes === 0 ? [] : terms.toString().split('\n'),
      start: new Uint32Array(arrays.start.buffer),
      docs: new Uint32Array(arrays.docs.buffer),
      posStart: new Uint32Array(arrays.posStart.buffer),
      positions: new Uint16Array(arrays.positions.buffer),
      maxPositions: new Uint16Array(arrays.maxPositions.buffer),
    };
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}
