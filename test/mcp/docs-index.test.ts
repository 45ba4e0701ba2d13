import { expect } from 'chai';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DocsIndex, type Passage } from '../../src/mcp/docs-index.js';

const titlesOf = (passages: readonly Passage[]) => passages.map((p) => p.title);

describe('DocsIndex over the repository docs', () => {
  let index: DocsIndex;

  before(async () => {
    index = await DocsIndex.load(process.cwd());
  });

  it('holds passages of the guides, the ADRs and the OpenAPI contract', () => {
    const sources = new Set(index.passages.map((p) => p.source));
    expect(sources).to.include.members(['docs/usage-and-limits.md', 'docs/adr/0005-metering.md', 'openapi.yaml']);
    expect(index.size).to.equal(index.passages.length).and.be.above(100);
  });

  it('keeps every passage non-empty and within about 1,500 characters', () => {
    for (const { source, title, text } of index.passages) {
      expect(text.trim(), `${source} ${title}`).not.to.equal('');
      expect(text.length, `${source} ${title}`).to.be.at.most(1600);
    }
  });

  it('ranks the metering ADR first for "monthly requests grants drawn oldest first"', () => {
    const [best] = index.search('monthly requests grants drawn oldest first', 5);
    expect(best?.source).to.equal('docs/adr/0005-metering.md');
    expect(best?.title).to.match(/› Decision$/);
  });

  it('finds the sync guide or the change feed operation in the top 3 for "change feed resume cursor"', () => {
    const top = index.search('change feed resume cursor', 3);
    expect(top.some((h) => h.source === 'docs/sync-and-exports.md' || h.title.startsWith('GET /v1/jobs/changes'))).to.equal(true);
  });

  it('finds a passage titled after the filter in the top 3 for "title_advanced boolean"', () => {
    const top = index.search('title_advanced boolean', 3);
    expect(titlesOf(top).some((t) => t.includes('title_advanced'))).to.equal(true);
  });

  it('ranks the export download operation first for "download an export file with a Range header"', () => {
    const [best] = index.search('download an export file with a Range header', 5);
    expect(best).to.include({ source: 'openapi.yaml', title: 'GET /v1/jobs/exports/{exportId}/files/{n}' });
  });

  it('ranks the shutdown section first for "graceful shutdown SIGTERM"', () => {
    const [best] = index.search('graceful shutdown SIGTERM', 5);
    expect(best).to.include({ source: 'docs/lifecycle.md', title: 'Request lifecycle › Shutdown' });
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
    await writeFile(join(root, 'docs', 'adr', '0001-long.md'), `# 0001: Long\n\n${longBody}\n`);
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
    const index = await DocsIndex.load(root);
    expect(index.passages.filter((p) => p.source === 'docs/guide.md')).to.deep.equal([
      { source: 'docs/guide.md', title: 'Guide', text: 'Intro paragraph.' },
      { source: 'docs/guide.md', title: 'Guide › Install', text: 'Run it.\n\n```sh\n# not a heading\nnpm start\n```' },
      { source: 'docs/guide.md', title: 'Guide › Empty › Deep', text: 'Deep text.' },
      { source: 'docs/guide.md', title: 'Guide › Empty › Deep › Four', text: 'Four text.\n\n##### Five stays in the body' },
      { source: 'docs/guide.md', title: 'Guide › The colour filter', text: 'See [the spec](../openapi.yaml).' },
    ]);
  });

  it('cuts a long section at paragraph boundaries into passages with the same title', async () => {
    const index = await DocsIndex.load(root);
    const pieces = index.passages.filter((p) => p.source === 'docs/adr/0001-long.md');
    expect(pieces.length).to.be.above(1);
    expect(new Set(titlesOf(pieces))).to.deep.equal(new Set(['0001: Long']));
    expect(pieces.every((p) => p.text.length <= 1500)).to.equal(true);
    expect(pieces.map((p) => p.text).join('\n\n')).to.equal(longBody);
  });

  it('reads the overview, operations, $ref parameters once, and described schemas and properties', async () => {
    const index = await DocsIndex.load(root);
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

  it('finds an operation by a word of its route', async () => {
    const index = await DocsIndex.load(root);
    expect(titlesOf(index.search('gadgets', 10))).to.deep.equal(['GET /v1/gadgets/{id}']);
  });
});
