import { expect } from 'chai';
import { QueryEngine } from '../../src/db/engine.js';
import { readGroupColumns, type GroupColumn } from '../../src/jobs/trend-groups.js';

/** The groups version `doc` counts in, by name. */
function groupsOf(column: GroupColumn, doc: number): (string | null)[] {
  const { codes, more, names } = column;
  const others = more === null ? [] : Array.from(more.codes.filter((_, i) => more.docs[i] === doc));
  return [codes[doc]!, ...others].map((code) => names[code]!);
}

describe('the groups of the versions, read as codes', function () {
  this.timeout(60_000);
  let engine: QueryEngine;
  let columns: Awaited<ReturnType<typeof readGroupColumns>>;
  // 70,000 versions: employers enough for codes of four bytes, a few with no employer.
  const SIZE = 70_000;
  // The versions that hold at the latest publication: every other one.
  const atLatest = Uint8Array.from({ length: SIZE }, (_, doc) => (doc % 2 === 0 ? 1 : 0));

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
    columns = await readGroupColumns(engine, 'g_', SIZE, atLatest);
  });
  after(() => engine.close());

  it('gives a group of one value a version a code each, in four bytes past 65,535 groups, null last', () => {
    const employer = columns.get('employer')!;
    expect(employer.more).to.equal(null);
    expect(employer.codes).to.be.instanceOf(Uint32Array);
    expect(employer.names.length).to.equal(SIZE - SIZE / 1000 + 1);
    expect(employer.names.at(-1)).to.equal(null);
    expect(employer.names.slice(0, -1)).to.deep.equal([...employer.names.slice(0, -1)].sort());
    for (const doc of [0, 1, 999, 1000, 1001, SIZE - 1])
      expect(groupsOf(employer, doc), `doc ${doc}`).to.deep.equal([doc % 1000 === 0 ? null : `e${String(doc).padStart(6, '0')}`]);
  });

  it('names coded and derived values as count does', () => {
    expect(columns.get('company_id')!.codes).to.be.instanceOf(Uint8Array);
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

  it('puts a version with several values in each group, and one with none in the null group', () => {
    const skills = columns.get('skills')!;
    const as = (column: GroupColumn, doc: number) => new Set(groupsOf(column, doc));
    expect(skills.more).to.not.equal(null);
    const latest = Array.from(skills.more!.docs.keys()).filter((i) => skills.more!.docs[i]! % 2 === 0);
    expect(latest.length).to.be.above(0);
    expect(Array.from(skills.moreAtLatest!.docs)).to.deep.equal(latest.map((i) => skills.more!.docs[i]));
    expect(Array.from(skills.moreAtLatest!.codes)).to.deep.equal(latest.map((i) => skills.more!.codes[i]));
    expect([0, 1, SIZE - 1].map((doc) => groupsOf(skills, doc))).to.deep.equal([[null], ['sql'], [null]]);
    expect(as(skills, 2)).to.deep.equal(new Set(['python', 'sql']));
    const country = columns.get('country')!;
    expect([0, 1].map((doc) => groupsOf(country, doc))).to.deep.equal([[null], ['US']]);
    expect(as(country, 2)).to.deep.equal(new Set(['CA', 'US']));
    expect(as(columns.get('source_class')!, 7)).to.deep.equal(new Set(['ats', null]));
    expect(groupsOf(columns.get('state')!, 7)).to.deep.equal([null]);
    expect(groupsOf(columns.get('msa')!, 7)).to.deep.equal(['12420']);
  });
});
