// Relevance against PostgreSQL (DESIGN.md 4): tsRank must give, bit for bit, the float4 that
// ts_rank('{0.1, 0, 0, 1.0}', title_A || description_D, query) gives, for every pair of generated
// queries and corpus documents, and for documents at the tsvector limits.

import { expect } from 'chai';
import type pg from 'pg';
import { analyze, tsvector } from '../../src/search/analyze.js';
import { isEmpty, parseAdvanced, phraseQuery, plainQuery, toTsquery, type Query } from '../../src/search/query.js';
import { mapSource, maxPosition, tsRank, tsRankSingle, type RankSource } from '../../src/search/rank.js';
import { connectOracle, corpusTexts, random } from './support/oracle.js';
import { generateQueries, vocabulary } from './support/queries.js';

interface Doc {
  title: string;
  description: string | null;
}

interface Prepared {
  source: RankSource;
  shift: number;
  title: Map<string, number[]>;
  description: Map<string, number[]>;
}

const RANK_SQL = `
  SELECT ts_rank('{0.1, 0, 0, 1.0}', d.v, q.q::tsquery)::float8::text AS rank
  FROM unnest($1::text[]) WITH ORDINALITY AS q(q, qi) CROSS JOIN rank_docs d
  ORDER BY q.qi, d.di`;

const LOAD_SQL = `
  CREATE TEMP TABLE rank_docs AS
  SELECT i AS di, setweight(to_tsvector('jps_english', t), 'A') || setweight(to_tsvector('jps_english', coalesce(d, '')), 'D') AS v
  FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS x(t, d, i)`;

/** Documents at the limits: no description, no lexeme, > 256 occurrences, positions past 16383, matches in one field only. */
function edgeDocs(): Doc[] {
  const docs: Doc[] = [
    { title: 'Registered Nurse', description: null },
    { title: 'Registered Nurse', description: '' },
    { title: 'nurse '.repeat(300), description: 'nurse practitioner '.repeat(300) },
    { title: 'Senior Nurse', description: `${'filler '.repeat(16390)}nurse senior practitioner registered` },
    { title: `${'ward '.repeat(120)}nurse`, description: `${'clinic '.repeat(16250)}nurse nurse nurse practitioner registered senior` },
    { title: `${'filler '.repeat(16390)}nurse`, description: 'nurse care registered' },
    { title: 'Practitioner', description: 'registered nurse needed for the night shift' },
    { title: 'Registered Nurse Manager', description: 'Hospital care, management and managers' },
    { title: 'The And Of', description: 'nurse nurse practitioner' },
    { title: '', description: 'registered nurse' },
    { title: 'The Of', description: null },
    { title: '', description: 'and the' },
    { title: 'manage manager management managed', description: 'managing the management of managers' },
    { title: 'Managerial Nurse Manager', description: 'managerial duties of the manager, registered nurse, nursery care hospital' },
  ];
  for (const [nt, nd] of [
    [1, 0],
    [0, 1],
    [3, 5],
    [255, 1],
    [200, 100],
    [0, 300],
    [10, 250],
  ] as const) {
    docs.push({ title: 'nurse '.repeat(nt), description: 'nurse '.repeat(nd) });
  }
  // One document per distance between two words: word_distance() for 1..102.
  for (let d = 1; d <= 102; d += 1) docs.push({ title: `alpha ${'x '.repeat(d - 1)}beta`, description: null });
  return docs;
}

const EDGE_QUERIES = [
  'nurse',
  'nurse:*',
  'nurs',
  'registered nurse',
  'nurse & practitioner',
  'nurse | practitioner',
  '!nurse',
  'nurse & !practitioner',
  '"registered nurse"',
  'senior & nurse',
  'care | nurse:*',
  'alpha & beta',
  '"alpha beta"',
  'alpha | beta',
  'alpha:* & beta',
  'manag & manag:*',
  'manag:* & manag',
  'manag:* | manag',
  'manag:* & hospit',
  'a1 a2 a3 a4 manag:* a5 manag a6 a7',
  'manag a1 a2 a3 manag:* a4 a5 a6 a7 a8',
  'manag:* nurs manag care manag:* hospit regist manag',
  'filler & nurse',
  'clinic:* & nurse',
];

/**
 * Long queries holding a lexeme both as itself and as a prefix: SortAndUniqItems keeps whichever of the two
 * PostgreSQL's quicksort puts first, which a stable sort would not predict.
 */
function duplicateOperandQueries(seed: number, count: number): Query[] {
  const r = random(seed);
  const fill = ['nurse', 'care', 'hospital', 'registered', 'duty', 'a1', 'a2', 'a3', 'a4', 'b1', 'b2'];
  const pick = () => (r.next() < 0.3 ? r.pick(['manag', 'manag:*', 'nurs', 'nurs:*', 'manageri:*']) : r.pick(fill));
  return Array.from({ length: count }, (_, i) => parseAdvanced(Array.from({ length: 7 + r.int(40) }, pick).join(i % 2 ? ' ' : ' | ')));
}

/** ~300 queries drawn from the documents' own words, so most ranks are not zero. */
function generated(docs: Doc[], seed: number): Query[] {
  const r = random(seed);
  const texts = docs.map((d) => `${d.title} ${d.description ?? ''}`);
  const words = vocabulary(texts).flat();
  const split = texts.map((t) => t.split(/\s+/));
  const lexemes = texts.flatMap((t) => analyze(t).map((x) => x.lexeme)).filter((l) => l.length > 3);
  const word = () => r.pick(words);
  const slice = (min: number, max: number) => {
    const doc = r.pick(split);
    const start = r.int(doc.length);
    return doc.slice(start, start + min + r.int(max - min + 1)).join(' ');
  };
  const withStopWord = () => {
    const text = r.pick(docs.map((d) => d.description ?? d.title));
    const at = text.indexOf(r.pick([' of ', ' the ', ' and ', ' to ', ' with ']));
    return at < 0 ? slice(2, 4) : text.slice(Math.max(0, text.lastIndexOf(' ', at - 1)), at + 12 + r.int(12));
  };
  const out: Query[] = [];
  for (let i = 0; i < 40; i += 1) out.push(plainQuery(word()));
  for (let i = 0; i < 30; i += 1) {
    const lexeme = r.pick(lexemes);
    out.push({ kind: 'term', lexeme: lexeme.slice(0, 2 + r.int(lexeme.length - 1)), prefix: true });
  }
  for (let i = 0; i < 30; i += 1) out.push(phraseQuery(i % 2 ? slice(2, 5) : withStopWord()));
  for (let i = 0; i < 30; i += 1) out.push(plainQuery(slice(2, 4)));
  for (let i = 0; i < 20; i += 1) out.push(parseAdvanced(Array.from({ length: 2 + r.int(3) }, word).join(' | ')));
  for (let i = 0; i < 20; i += 1)
    out.push(
      parseAdvanced(r.pick([`${word()} & !${word()}`, `!${word()}`, `${word()} | !${word()}`, `${word()} ${word()} NOT ${word()}`])),
    );
  for (let i = 0; i < 20; i += 1) out.push(parseAdvanced(`(${word()} | ${r.pick(lexemes).slice(0, 4)}:*) & "${slice(2, 3)}"`));
  for (const g of generateQueries(texts, 140, seed + 1, true)) out.push(parseAdvanced(g.advanced));
  return out;
}

function prepare(doc: Doc): Prepared {
  const title = tsvector(doc.title);
  const description = tsvector(doc.description ?? '');
  return { source: mapSource(title, description), shift: maxPosition(title), title, description };
}

describe('tsRank: ts_rank of title_A || description_D (DESIGN.md 4)', function () {
  this.timeout(180_000);
  let client: pg.Client;
  let docs: Doc[];
  let prepared: Prepared[];
  let queries: Query[];

  before(async () => {
    client = await connectOracle();
    const corpus = await corpusTexts();
    const r = random(4242);
    const sample: Doc[] = Array.from({ length: 200 }, (_, i) => ({
      title: r.pick(corpus.titles),
      description: i % 25 === 7 ? null : r.pick(corpus.descriptions),
    }));
    docs = [...sample, ...edgeDocs()];
    prepared = docs.map(prepare);
    queries = [...generated(sample, 99), ...EDGE_QUERIES.map(parseAdvanced), ...duplicateOperandQueries(5, 40)].filter((q) => !isEmpty(q));
    await client.query(LOAD_SQL, [docs.map((d) => d.title), docs.map((d) => d.description)]);
  });
  after(() => client.end());

  it('gives the float4 PostgreSQL gives for every query and document', async () => {
    const { rows } = await client.query<{ rank: string }>(RANK_SQL, [queries.map(toTsquery)]);
    expect(rows).to.have.length(queries.length * docs.length);
    let agree = 0;
    let nonZero = 0;
    const mismatches: string[] = [];
    queries.forEach((q, qi) => {
      prepared.forEach((d, di) => {
        const expected = Number(rows[qi * docs.length + di]!.rank);
        const ours = tsRank(q, d.source, d.shift);
        if (expected > 1e-19) nonZero += 1;
        if (Math.fround(ours) === expected && Math.fround(ours) === ours) agree += 1;
        else if (mismatches.length < 10) mismatches.push(`${toTsquery(q)} | doc ${di}: ours ${ours}, PostgreSQL ${expected}`);
      });
    });
    const total = queries.length * docs.length;
    console.log(
      `      ts_rank agreement: ${agree}/${total} (${((100 * agree) / total).toFixed(2)} %), ${queries.length} queries × ${docs.length} documents, ${nonZero} ranks > 1e-20`,
    );
    expect(mismatches).to.deep.equal([]);
    expect(nonZero).to.be.greaterThan(total / 20);
  });

  it('ranks a single lexeme from its two counts alone (tsRankSingle)', () => {
    let checked = 0;
    for (const q of queries) {
      if (q.kind !== 'term' || q.prefix) continue;
      for (const d of prepared) {
        const description = d.description.get(q.lexeme) ?? [];
        if (d.shift + (description[description.length - 1] ?? 0) >= 16383) continue;
        expect(tsRankSingle(d.title.get(q.lexeme)?.length ?? 0, description.length)).to.equal(tsRank(q, d.source, d.shift));
        checked += 1;
      }
    }
    expect(checked).to.be.greaterThan(5000);
  });

  it('agrees with tsRank for every pair of counts a document can hold', () => {
    const q: Query = { kind: 'term', lexeme: 'nurs', prefix: false };
    const positions = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
    for (let nt = 0; nt <= 255; nt += 1) {
      for (let nd = 0; nd <= 300; nd += nd < 20 ? 1 : 7) {
        const source = mapSource(
          new Map([
            ['nurs', positions(nt)],
            ['rn', [nt + 1]],
          ]),
          new Map([['nurs', positions(nd)]]),
        );
        expect(tsRankSingle(nt, nd), `${nt} ${nd}`).to.equal(tsRank(q, source, nt + 1));
      }
    }
  });
});
