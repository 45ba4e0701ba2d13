import { expect } from 'chai';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { excerpt } from '../../src/mcp/docs-excerpt.js';
import { DocsIndex, queryTerms, type Passage } from '../../src/mcp/docs-index.js';
import { GUIDES } from '../../src/shared/guides.js';

const titlesOf = (passages: readonly Passage[]) => passages.map((p) => p.title);

describe('DocsIndex over the repository docs', () => {
  let index: DocsIndex;

  before(async () => {
    index = await DocsIndex.load(process.cwd());
  });

  it('holds passages of every guide for API users and of the OpenAPI contract, and nothing else', () => {
    const sources = new Set(index.passages.map((p) => p.source));
    expect([...sources].sort()).to.deep.equal([...GUIDES.map((g) => `docs/${g}`), 'openapi.yaml'].sort());
    expect(index.size).to.equal(index.passages.length).and.be.above(100);
  });

  it('never holds an ADR or a note on the internals', () => {
    for (const { source } of index.passages) {
      expect(source).not.to.match(/^docs\/adr\//);
      expect(source).not.to.match(/^docs\/(architecture|operations|deployment|catalog|corpus|lifecycle)\.md$/);
    }
    expect(index.search('graceful shutdown SIGTERM', 10).map((h) => h.source)).not.to.include('docs/lifecycle.md');
  });

  it('keeps every passage non-empty and within about 1,500 characters', () => {
    for (const { source, title, text } of index.passages) {
      expect(text.trim(), `${source} ${title}`).not.to.equal('');
      expect(text.length, `${source} ${title}`).to.be.at.most(1600);
    }
  });

  describe('answers the questions an agent asks with the right guide first', () => {
    const first = (query: string) => index.search(query, 3)[0];

    it('"how do I filter jobs by state": the filters guide, its section on places', () => {
      for (const query of ['how do I filter jobs by state', 'filter by state'])
        expect(first(query)).to.include({ source: 'docs/filters.md', title: 'Filtering jobs › By place: state, country, city' });
    });

    it('"how do I keep my copy in sync": the sync guide', () => {
      expect(first('how do I keep my copy in sync')?.source).to.equal('docs/sync-and-exports.md');
      expect(first('sync jobs')?.source).to.equal('docs/sync-and-exports.md');
    });

    // usage-and-limits.md, not errors.md: errors.md gives each 429 code one table row and sends the reader
    // to usage-and-limits.md, which says when each is answered (which allowance or throttle) and what to do.
    it('"what does a 429 mean": the usage and limits guide, the errors guide in the top 10', () => {
      expect(first('what does a 429 mean')?.source).to.equal('docs/usage-and-limits.md');
      expect(first('429 error')?.source).to.equal('docs/usage-and-limits.md');
      expect(index.search('what does a 429 mean', 10).map((h) => h.source)).to.include('docs/errors.md');
    });

    it('"how does overage billing work": the usage and limits guide', () => {
      expect(first('how does overage billing work')?.source).to.equal('docs/usage-and-limits.md');
      expect(first('overage billing')?.source).to.equal('docs/usage-and-limits.md');
    });

    it('"how do I export jobs in bulk": the exports guide', () => {
      expect(first('how do I export jobs in bulk')?.source).to.equal('docs/sync-and-exports.md');
      expect(first('export jobs')?.source).to.equal('docs/sync-and-exports.md');
    });
  });

  it('finds the sync guide or the change feed operation in the top 3 for "change feed resume cursor"', () => {
    const top = index.search('change feed resume cursor', 3);
    expect(top.some((h) => h.source === 'docs/sync-and-exports.md' || h.title.startsWith('GET /v1/jobs/changes'))).to.equal(true);
  });

  it('finds the search guide\'s Boolean syntax and the contract\'s title_advanced in the top 5 for "title_advanced boolean"', () => {
    const top = index.search('title_advanced boolean', 5);
    expect(top[0]?.source).to.equal('docs/search.md');
    expect(titlesOf(top).some((t) => t.includes('title_advanced'))).to.equal(true);
  });

  it('ranks a contract passage first when no guide says as much: "download an export file with a Range header"', () => {
    const [best] = index.search('download an export file with a Range header', 5);
    expect(best).to.include({ source: 'openapi.yaml', title: 'GET /v1/jobs/exports/{exportId}/files/{n}' });
  });

  it('returns a passage whole by its title, the one the query matches first', () => {
    const [hit] = index.search('how do I export jobs in bulk', 1);
    const whole = index.passage(hit!.title, 'how do I export jobs in bulk', 10);
    expect(whole.length).to.be.at.least(1);
    expect(whole[0]).to.deep.equal(hit);
    expect(whole.every((p) => p.title === hit!.title)).to.equal(true);
    expect(index.passage('no such title', 'export', 10)).to.deep.equal([]);
  });

  it('lists a filter parameter shared by several routes once, not once per route', () => {
    const hits = index.search('title_advanced', index.size);
    expect(titlesOf(hits).filter((t) => t.endsWith('parameter title_advanced'))).to.deep.equal(['parameter title_advanced']);
  });

  it('answers [] for a query of stop words only, or of words found nowhere', () => {
    expect(index.search('the of and is', 10)).to.deep.equal([]);
    expect(index.search('zyzzyva', 10)).to.deep.equal([]);
  });

  it('returns at most limit hits', () => {
    expect(index.search('cursor', 3)).to.have.length(3);
    expect(index.search('cursor', 0)).to.deep.equal([]);
  });

  it('sorts hits by score, best first', () => {
    const hits = index.search('records allowance overage export', 50);
    expect(hits.length).to.be.above(10);
    for (let i = 1; i < hits.length; i++) expect(hits[i - 1]!.score).to.be.at.least(hits[i]!.score);
  });
});

describe('DocsIndex', () => {
  it('breaks ties by source, then title', () => {
    const index = new DocsIndex([
      { source: 'b.md', title: 'Beta', text: 'alpha' },
      { source: 'a.md', title: 'Gamma', text: 'alpha' },
      { source: 'a.md', title: 'Beta', text: 'alpha' },
    ]);
    const hits = index.search('alpha', 10);
    expect(hits.map((h) => `${h.source} ${h.title}`)).to.deep.equal(['a.md Beta', 'a.md Gamma', 'b.md Beta']);
    expect(new Set(hits.map((h) => h.score)).size).to.equal(1);
  });

  it('weighs a guide above a contract passage that matches as well', () => {
    const index = new DocsIndex([
      { source: 'openapi.yaml', title: 'Other', text: 'cursor rules' },
      { source: 'docs/a.md', title: 'Other', text: 'cursor rules' },
    ]);
    const [best, next] = index.search('cursor', 2);
    expect(best?.source).to.equal('docs/a.md');
    expect(best!.score).to.be.closeTo(1.5 * next!.score, 1e-9);
  });

  it('also looks for the synonyms a query names, weighed half', () => {
    expect(Object.fromEntries(queryTerms('what does a 429 mean'))).to.deep.equal({
      429: 1,
      mean: 1,
      mani: 0.5,
      request: 0.5,
      rate: 0.5,
      limit: 0.5,
      data: 0.5,
      exceed: 0.5,
    });
    expect(Object.fromEntries(queryTerms('rate limited'))).to.include({ rate: 1, limit: 1, 429: 0.5 });
    const index = new DocsIndex([
      { source: 'docs/a.md', title: 'Feed', text: 'the change feed keeps a copy current' },
      { source: 'docs/b.md', title: 'Other', text: 'nothing of the kind' },
    ]);
    expect(index.search('sync', 5).map((h) => h.source)).to.deep.equal(['docs/a.md']);
  });

  it('weighs a word in the title above the same word in the body', () => {
    const index = new DocsIndex([
      { source: 'a.md', title: 'Other', text: 'cursor rules' },
      { source: 'b.md', title: 'Cursor', text: 'other rules' },
    ]);
    expect(index.search('cursor', 1)[0]?.source).to.equal('b.md');
  });
});

describe('DocsIndex.load on a small project', () => {
  let root: string;
  const paragraph = (word: string) => `${word} `.repeat(120).trim();
  const longBody = ['alpha', 'bravo', 'charlie', 'delta'].map(paragraph).join('\n\n');
  const GUIDE_FILES = ['guide.md', 'long.md'];

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'docs-index-'));
    await mkdir(join(root, 'docs', 'adr'), { recursive: true });
    await writeFile(
      join(root, 'docs', 'guide.md'),
      [
        '# Guide',
        '',
        'Intro paragraph.',
        '',
        '## Install',
        '',
        'Run it.',
        '',
        '```sh',
        '# not a heading',
        'npm start',
        '```',
        '',
        '## Empty',
        '',
        '### Deep',
        'Deep text.',
        '#### Four',
        'Four text.',
        '',
        '##### Five stays in the body',
        '',
        '## The `colour` filter',
        '',
        'See [the spec](../openapi.yaml).',
        '',
      ].join('\n'),
    );
    await writeFile(join(root, 'docs', 'long.md'), `# Long\n\n${longBody}\n`);
    await writeFile(join(root, 'docs', 'adr', '0001-decision.md'), '# 0001: Decision\n\nInternal.\n');
    await writeFile(
      join(root, 'openapi.yaml'),
      `openapi: 3.1.0
info:
  title: Things
  version: '1'
  description: The overview.
paths:
  /v1/things:
    get:
      summary: List things
      description: All the things.
      parameters:
        - $ref: '#/components/parameters/colour'
        - name: size
          in: query
          description: Size of a thing.
          schema: { type: string }
        - name: quiet
          in: query
          schema: { type: string }
  /v1/gadgets/{id}:
    get:
      summary: Get a thing
      parameters:
        - $ref: '#/components/parameters/colour'
components:
  parameters:
    colour:
      name: colour
      in: query
      description: Only things of this colour.
      schema: { type: string }
  schemas:
    Thing:
      description: A thing.
      properties:
        colour: { type: string, description: Its colour. }
        id: { type: string }
`,
    );
  });

  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('makes one passage per non-empty section, titled by its heading path, code fences kept', async () => {
    const index = await DocsIndex.load(root, GUIDE_FILES);
    expect(index.passages.filter((p) => p.source === 'docs/guide.md')).to.deep.equal([
      { source: 'docs/guide.md', title: 'Guide', text: 'Intro paragraph.' },
      { source: 'docs/guide.md', title: 'Guide › Install', text: 'Run it.\n\n```sh\n# not a heading\nnpm start\n```' },
      { source: 'docs/guide.md', title: 'Guide › Empty › Deep', text: 'Deep text.' },
      { source: 'docs/guide.md', title: 'Guide › Empty › Deep › Four', text: 'Four text.\n\n##### Five stays in the body' },
      { source: 'docs/guide.md', title: 'Guide › The colour filter', text: 'See [the spec](../openapi.yaml).' },
    ]);
  });

  it('cuts a long section at paragraph boundaries into passages with the same title', async () => {
    const index = await DocsIndex.load(root, GUIDE_FILES);
    const pieces = index.passages.filter((p) => p.source === 'docs/long.md');
    expect(pieces.length).to.be.above(1);
    expect(new Set(titlesOf(pieces))).to.deep.equal(new Set(['Long']));
    expect(pieces.every((p) => p.text.length <= 1500)).to.equal(true);
    expect(pieces.map((p) => p.text).join('\n\n')).to.equal(longBody);
  });

  it('reads the overview, operations, $ref parameters once, and described schemas and properties', async () => {
    const index = await DocsIndex.load(root, GUIDE_FILES);
    expect(index.passages.filter((p) => p.source === 'openapi.yaml')).to.have.deep.members([
      { source: 'openapi.yaml', title: 'API overview', text: 'The overview.' },
      { source: 'openapi.yaml', title: 'GET /v1/things', text: 'List things\n\nAll the things.' },
      { source: 'openapi.yaml', title: 'GET /v1/gadgets/{id}', text: 'Get a thing' },
      { source: 'openapi.yaml', title: 'parameter colour', text: 'Only things of this colour.' },
      { source: 'openapi.yaml', title: 'GET /v1/things › parameter size', text: 'Size of a thing.' },
      { source: 'openapi.yaml', title: 'schema Thing', text: 'A thing.' },
      { source: 'openapi.yaml', title: 'schema Thing › property colour', text: 'Its colour.' },
    ]);
    expect(index.size).to.equal(index.passages.length);
  });

  it('reads only the guides it is given, not the rest of docs/', async () => {
    const index = await DocsIndex.load(root, GUIDE_FILES);
    expect([...new Set(index.passages.map((p) => p.source))].sort()).to.deep.equal(['docs/guide.md', 'docs/long.md', 'openapi.yaml']);
  });

  it('finds an operation by a word of its route', async () => {
    const index = await DocsIndex.load(root, GUIDE_FILES);
    expect(titlesOf(index.search('gadgets', 10))).to.deep.equal(['GET /v1/gadgets/{id}']);
  });
});

describe('excerpt', () => {
  const words = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `w${from + i}`).join(' ');

  it('keeps a text of at most max characters whole', () => {
    expect(excerpt('short text', 'text', 600)).to.equal('short text');
  });

  it('cuts at most max characters around the query words, between words, with … where text was left out', () => {
    const text = `${words(0, 200)} overage is billed per record ${words(200, 400)}`;
    const cut = excerpt(text, 'overage billing', 120);
    expect(cut.length).to.be.at.most(120);
    expect(cut).to.match(/^…/).and.match(/…$/).and.include('overage is billed');
    expect(text).to.include(cut.slice(1, -1));
    expect(cut.slice(1, -1)).to.match(/^\S.*\S$/);
  });

  it('prefers the window holding the most distinct query words', () => {
    const text = `export ${words(0, 100)} export and sync together ${words(100, 200)}`;
    expect(excerpt(text, 'export sync', 80)).to.include('export and sync');
  });

  it('starts at the beginning when no query word occurs', () => {
    const cut = excerpt(words(0, 300), 'zyzzyva', 50);
    expect(cut).to.match(/^w0 /).and.match(/…$/);
    expect(cut.length).to.be.at.most(50);
  });
});
