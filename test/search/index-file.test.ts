// The text indexes kept in the serving cache: what is read back answers every query as the index
// that was written, and a file cut short or from another format is not read at all.

import { expect } from 'chai';
import { mkdtempSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readIndexFile, writeIndexFile } from '../../src/search/index-file.js';
import { IndexBuilder } from '../../src/search/index-builder.js';
import { InvertedIndex } from '../../src/search/inverted-index.js';
import { parseAdvanced, phraseQuery } from '../../src/search/query.js';

describe('text index files', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'index-file-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const texts = [
    'Senior Data Engineer',
    null,
    'Registered Nurse – night shift',
    'Café manager (Zürich)',
    '',
    'Data engineer, data platform',
  ];
  const built = () => {
    const builder = new IndexBuilder();
    for (const text of texts) builder.add(text);
    return builder.build();
  };

  it('reads back an index that answers every query as the one written', () => {
    const index = built();
    const path = join(dir, 'title.index');
    writeIndexFile(path, index.toParts());
    const parts = readIndexFile(path);
    expect(parts).to.not.equal(null);
    const read = InvertedIndex.fromParts(parts!);
    expect(read.terms).to.deep.equal(index.terms);
    expect(read.documents).to.equal(texts.length);
    expect(Array.from(read.maxPositions)).to.deep.equal(Array.from(index.maxPositions));
    for (const query of [
      phraseQuery('data engineer'),
      phraseQuery('cafe'),
      parseAdvanced('nurse | data !platform'),
      parseAdvanced('manag:*'),
    ]) {
      expect(Array.from(read.evaluate(query))).to.deep.equal(Array.from(index.evaluate(query)));
    }
    expect(Array.from(read.positionsIn('data', 5)!)).to.deep.equal([1, 3]);
  });

  it('reads back an empty index', () => {
    const path = join(dir, 'empty.index');
    writeIndexFile(path, new IndexBuilder().build().toParts());
    const read = InvertedIndex.fromParts(readIndexFile(path)!);
    expect(read.terms).to.deep.equal([]);
    expect(read.documents).to.equal(0);
  });

  it('does not read a file cut short, one of another format, or none', () => {
    const path = join(dir, 'title.index');
    writeIndexFile(path, built().toParts());
    truncateSync(path, statSync(path).size - 8);
    expect(readIndexFile(path)).to.equal(null);
    writeFileSync(path, 'not an index at all');
    expect(readIndexFile(path)).to.equal(null);
    expect(readIndexFile(join(dir, 'missing.index'))).to.equal(null);
  });
});
