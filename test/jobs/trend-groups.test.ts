import { expect } from 'chai';
import { QueryEngine } from '../../src/db/engine.js';
import { readGroupColumns, type GroupColumn } from '../../src/jobs/trend-groups.js';

/** The groups version `doc` counts in, by name: its codes, or the groups listing it. */
function groupsOf(column: GroupColumn, doc: number): (string | null)[] {
  if ('members' in column) {
    const { docs, start } = column.members;
    return column.names.filter((_, code) => docs.subarray(start[code], start[code + 1]).includes(doc));
  }
  const { codes, more, names } = column;
  const others = more === null ? [] : Array.from(more.codes.filter((_, i) => more.docs[i] === doc));
  return [codes[doc]!, ...others].map((code) => names[code]!);
}

describe('the groups of the versions, read as codes', function () {
  this.timeout(60_000);
  let engine: QueryEngine;
  let columns: Awaited<ReturnType<typeof readGroupColumns>>;
  // The same, every column of more than one group listed by group.
  let listed: typeof columns;
  // 70,000 versions: employers enough for codes of four bytes, a few with no employer.
  const SIZE = 70_000;
  // Spans over two publications (TrendsView.span, width 3): the even versions hold at the latest (from
  // the first publication or from the second), the odd ones only at the first.
  const WIDTH = 3;
  const span = Uint16Array.from({ length: SIZE }, (_, doc) => (doc % 2 === 1 ? 1 : doc % 4 === 0 ? 2 : 5));

  before(async () => {
    engine = await QueryEngine.open({ timeoutMs: 30_000 });
    await engine.withConnection(async (c) => {
      await c.run(`CREATE TABLE g_codes AS SELECT * FROM (VALUES ('country', 'US', 0), ('country', 'CA', 1), ('subdivision', 'US-TX', 0),
        ('msa', '12420', 0), ('employment_type', 'full_time', 0), ('source_class', 'ats', 0)) AS t(kind, value, code)`);
      // Version by version: employer "e<doc>" (none each 1,000th), skills none, one or two, countries none,
      // US or both, the coded work arrangement and currentness, SOC codes sharing a major group.
      await c.run(`CREATE TABLE g_jobs AS SELECT
          doc::INTEGER AS doc,
          CASE WHEN doc % 1000 = 0 THEN NULL ELSE 'e' || lpad(doc::VARCHAR, 6, '0') END AS employer_name,
          'c' || (doc % 7) AS company_id,
          (doc % 4)::UTINYINT AS work_arrangement,
          (doc % 3)::UTINYINT AS currentness,
          NULL::VARCHAR AS pay_band,
          ['15-1252', '15-1253', NULL][doc % 3 + 1] AS soc_code,
          [[], ['sql'], ['sql', 'python']][doc % 3 + 1]::VARCHAR[] AS skills,
          [[-1], [0], [0, 1]][doc % 3 + 1]::INTEGER[] AS country_codes,
          [-1]::INTEGER[] AS subdivision_codes, [0]::INTEGER[] AS msa_codes,
          [0]::INTEGER[] AS employment_codes, [-1, 0]::INTEGER[] AS class_codes
        FROM range(${SIZE}) t(doc)`);
    });
    columns = await readGroupColumns(engine, 'g_', span, WIDTH);
    listed = await readGroupColumns(engine, 'g_', span, WIDTH, 1);
  });
  after(() => engine.close());

  it('lists the versions of each group past 256 groups (or when asked), those at the latest publication first, null last', () => {
    const employer = columns.get('employer')!;
    if (!('members' in employer)) throw new Error('employer is not listed by group');
    expect(employer.names.length).to.equal(SIZE - SIZE / 1000 + 1);
    expect(employer.names.at(-1)).to.equal(null);
    expect(employer.names.slice(0, -1)).to.deep.equal([...employer.names.slice(0, -1)].sort());
    for (const doc of [0, 1, 999, 1000, 1001, SIZE - 1])
      expect(groupsOf(employer, doc), `doc ${doc}`).to.deep.equal([doc % 1000 === 0 ? null : `e${String(doc).padStart(6, '0')}`]);
    // Listed by group, skills' "sql": the versions at the latest publication (the even ones) first, each
    // part in order of span, then of doc, and each version's span beside it.
    const skills = listed.get('skills')!;
    if (!('members' in skills)) throw new Error('skills are not listed by group');
    const { docs, spans, start, latestEnd } = skills.members;
    const sql = skills.names.indexOf('sql');
    const versions = Array.from(docs.subarray(start[sql], start[sql + 1]));
    const having = Array.from({ length: SIZE }, (_, doc) => doc).filter((doc) => doc % 3 !== 0);
    expect(versions).to.deep.equal([
      ...having.filter((doc) => doc % 4 === 0),
      ...having.filter((doc) => doc % 4 === 2),
      ...having.filter((doc) => doc % 2 === 1),
    ]);
    expect(Array.from(spans.subarray(start[sql], start[sql + 1]))).to.deep.equal(versions.map((doc) => span[doc]));
    expect(latestEnd[sql]! - start[sql]!).to.equal(having.filter((doc) => doc % 2 === 0).length);
  });

  it('codes a group of few values in one byte a version, null last', () => {
    const company = columns.get('company_id')!;
    expect('codes' in company && company.codes).to.be.instanceOf(Uint8Array);
    expect([0, 1, 7].map((doc) => groupsOf(company, doc))).to.deep.equal([['c0'], ['c1'], ['c0']]);
  });

  it('names coded and derived values as count does', () => {
    expect([0, 1, 2, 3].map((doc) => groupsOf(columns.get('work_arrangement')!, doc))).to.deep.equal([
      [null],
      ['remote'],
      ['hybrid'],
      ['in_person'],
    ]);
    expect([0, 1, 2].map((doc) => groupsOf(columns.get('currentness')!, doc))).to.deep.equal([['current'], ['uncertain'], ['not_current']]);
    expect([0, 1, 2].map((doc) => groupsOf(columns.get('soc_major')!, doc))).to.deep.equal([['15-0000'], ['15-0000'], [null]]);
    expect(groupsOf(columns.get('pay_band')!, 5)).to.deep.equal([null]);
  });

  for (const how of ['coded', 'listed by group'])
    it(`puts a version with several values in each group, and one with none in the null group, ${how}`, () => {
      const read = how === 'coded' ? columns : listed;
      const skills = read.get('skills')!;
      expect('members' in skills).to.equal(how !== 'coded');
      const as = (column: GroupColumn, doc: number) => new Set(groupsOf(column, doc));
      expect([0, 1, SIZE - 1].map((doc) => groupsOf(skills, doc))).to.deep.equal([[null], ['sql'], [null]]);
      expect(as(skills, 2)).to.deep.equal(new Set(['python', 'sql']));
      const country = read.get('country')!;
      expect([0, 1].map((doc) => groupsOf(country, doc))).to.deep.equal([[null], ['US']]);
      expect(as(country, 2)).to.deep.equal(new Set(['CA', 'US']));
      expect(as(read.get('source_class')!, 7)).to.deep.equal(new Set(['ats', null]));
      expect(groupsOf(read.get('state')!, 7)).to.deep.equal([null]);
      expect(groupsOf(read.get('msa')!, 7)).to.deep.equal(['12420']);
    });
});
