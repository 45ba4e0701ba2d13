import { expect } from 'chai';
import { join } from 'node:path';
import { QueryEngine } from '../../src/db/engine.js';
import { lineFile, readLineBytes, type LineFile } from '../../src/jobs/line-file.js';
import { tempDir } from '../support/folders.js';

/** Ten JSON lines written by DuckDB as the serving cache's are: {"n":i,"pad":"x" i times}. */
const COPY = `COPY (SELECT i::INTEGER AS n, repeat('x', i::INTEGER) AS pad FROM range(10) t(i) ORDER BY i) TO {out} (FORMAT json)`;
const line = (n: number) => JSON.stringify({ n, pad: 'x'.repeat(n) });
const text = (lines: Buffer[]) => lines.map((l) => l.toString());

describe('the serving cache files read by line', function () {
  this.timeout(30_000);
  let engine: QueryEngine;
  let dir: string;
  const files: LineFile[] = [];
  const open = async (name: string, recentBytes?: number, prepare?: (line: Buffer) => Buffer) => {
    const file = await lineFile(engine, join(dir, name), COPY, 10, { recentBytes, prepare });
    files.push(file);
    return file;
  };

  before(async () => {
    engine = await QueryEngine.open({ timeoutMs: 10_000 });
    dir = await tempDir('line-file');
  });
  after(async () => {
    await Promise.all(files.map((f) => f.handle.close().catch(() => undefined)));
    engine.close();
  });

  it('gives the lines asked for in the order asked, runs of neighbours and scattered ones alike', async () => {
    const file = await open('plain.jsonl');
    expect(text(readLineBytes(file, [7, 2, 3, 4, 9, 0]))).to.deep.equal([7, 2, 3, 4, 9, 0].map(line));
    expect(text(readLineBytes(file, []))).to.deep.equal([]);
  });

  it('answers lines it read recently without reading the file again, and reads around them for bulk reads', async () => {
    const file = await open('recent.jsonl', 1 << 20);
    expect(text(readLineBytes(file, [5, 1, 6]))).to.deep.equal([5, 1, 6].map(line));
    expect(text(readLineBytes(file, [8], false))).to.deep.equal([line(8)]);
    // With the file closed, a read fails: what still answers came from memory.
    await file.handle.close();
    expect(text(readLineBytes(file, [6, 5, 1]))).to.deep.equal([6, 5, 1].map(line));
    expect(() => readLineBytes(file, [1, 2])).to.throw();
    expect(() => readLineBytes(file, [8]), 'a bulk read keeps nothing').to.throw();
  });

  it('keeps no more than its budget of bytes, the least recently read dropped first', async () => {
    // Each line counts its line end too: room for lines 7 and 9, not for 8 beside them.
    const size = (n: number) => Buffer.byteLength(line(n)) + 1;
    const file = await open('budget.jsonl', size(7) + size(9));
    readLineBytes(file, [7]);
    readLineBytes(file, [8]);
    readLineBytes(file, [7]);
    readLineBytes(file, [9]);
    await file.handle.close();
    expect(text(readLineBytes(file, [7, 9]))).to.deep.equal([line(7), line(9)]);
    expect(() => readLineBytes(file, [8])).to.throw();
  });

  it('gives each line as the file prepares it, and keeps it prepared', async () => {
    let prepared = 0;
    const upper = (l: Buffer) => (prepared++, Buffer.from(l.toString().toUpperCase()));
    const file = await open('prepared.jsonl', 1 << 20, upper);
    expect(text(readLineBytes(file, [3, 2]))).to.deep.equal([line(3).toUpperCase(), line(2).toUpperCase()]);
    expect(text(readLineBytes(file, [2]))).to.deep.equal([line(2).toUpperCase()]);
    expect(prepared).to.equal(2);
  });
});
