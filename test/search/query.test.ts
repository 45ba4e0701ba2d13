import { expect } from 'chai';
import type pg from 'pg';
import { tsvector } from '../../src/search/analyze.js';
import {
  EMPTY,
  hasPositiveTerm,
  matches,
  parseAdvanced,
  phraseQuery,
  plainQuery,
  QuerySyntaxError,
  toTsquery,
  type Query,
} from '../../src/search/query.js';
import { batched, connectOracle, corpusTexts, randomTexts, TRICKY } from './support/oracle.js';
import { generateQueries } from './support/queries.js';

const adv = (text: string) => toTsquery(parseAdvanced(text));

function syntaxError(text: string): string {
  try {
    parseAdvanced(text);
  } catch (error) {
    if (error instanceof QuerySyntaxError) return error.message;
    throw error;
  }
  throw new Error(`${text} parsed`);
}

describe('text-search queries', function () {
  this.timeout(120_000);

  describe('the Boolean syntax (parseAdvanced)', () => {
    it('knows AND, OR, NOT and &, |, !', () => {
      expect(adv('nurse AND manager')).to.equal("'nurs' & 'manag'");
      expect(adv('nurse & manager')).to.equal("'nurs' & 'manag'");
      expect(adv('nurse OR manager')).to.equal("'nurs' | 'manag'");
      expect(adv('nurse | manager')).to.equal("'nurs' | 'manag'");
      expect(adv('NOT nurse')).to.equal("!'nurs'");
      expect(adv('!nurse')).to.equal("!'nurs'");
      expect(adv('NOT NOT nurse')).to.equal("!!'nurs'");
    });

    it('ANDs adjacent operands, and reads "a NOT b" as a AND NOT b', () => {
      expect(adv('registered nurse')).to.equal("'regist' & 'nurs'");
      expect(adv('nurse NOT manager')).to.equal("'nurs' & !'manag'");
      expect(adv('nurse !manager (remote OR hybrid)')).to.equal("'nurs' & !'manag' & ( 'remot' | 'hybrid' )");
    });

    it('binds NOT tighter than AND, and AND tighter than OR', () => {
      expect(parseAdvanced('a1 OR b1 AND c1')).to.deep.equal({
        kind: 'or',
        args: [
          { kind: 'term', lexeme: 'a1', prefix: false },
          {
            kind: 'and',
            args: [
              { kind: 'term', lexeme: 'b1', prefix: false },
              { kind: 'term', lexeme: 'c1', prefix: false },
            ],
          },
        ],
      });
      expect(adv('NOT sales AND manager')).to.equal("!'sale' & 'manag'");
      expect(adv('NOT (sales AND manager)')).to.equal("!( 'sale' & 'manag' )");
      expect(adv('(nurse OR doctor) AND night')).to.equal("( 'nurs' | 'doctor' ) & 'night'");
      expect(adv('nurse OR doctor night')).to.equal("'nurs' | 'doctor' & 'night'");
    });

    it('treats lower-case and, or, not as words (stop words, dropped)', () => {
      expect(adv('sales and marketing')).to.equal("'sale' & 'market'");
      expect(adv('sales or marketing')).to.equal("'sale' & 'market'");
      expect(adv('not remote')).to.equal("'remot'");
    });

    it('reads word:* as a prefix of the analyzed word', () => {
      expect(parseAdvanced('Managing:*')).to.deep.equal({ kind: 'term', lexeme: 'manag', prefix: true });
      expect(adv('data engin:*')).to.equal("'data' & 'engin':*");
      expect(adv('e-mail:*')).to.equal("'e-mail':* <-> 'e':* <-> 'mail':*");
    });

    it('reads "quoted phrases" as phraseto_tsquery, stop words keeping their places', () => {
      expect(parseAdvanced('"state of the art"')).to.deep.equal({
        kind: 'phrase',
        items: [
          { lexeme: 'state', prefix: false, offset: 0 },
          { lexeme: 'art', prefix: false, offset: 3 },
        ],
      });
      expect(adv('"software engineer" NOT "senior staff"')).to.equal("'softwar' <-> 'engin' & !( 'senior' <-> 'staff' )");
      expect(adv('"the"')).to.equal('');
    });

    it('makes a word with several lexemes a phrase, as to_tsquery does', () => {
      expect(adv('Mid-Market')).to.equal("'mid-market' <-> 'mid' <-> 'market'");
      expect(adv('401(k)')).to.equal("'401' & 'k'");
      expect(adv('$85,000')).to.equal("'85' <-> '000'");
      expect(adv("O'Reilly")).to.equal("'o' <-> 'reilli'");
    });

    it('drops stop words and collapses the operators they leave without operands', () => {
      expect(adv('the AND nurse')).to.equal("'nurs'");
      expect(adv('nurse OR (the AND of)')).to.equal("'nurs'");
      expect(adv('nurse NOT the')).to.equal("'nurs'");
      expect(parseAdvanced('NOT the')).to.deep.equal(EMPTY);
      expect(parseAdvanced('   ')).to.deep.equal(EMPTY);
    });

    it('reports what is wrong and where', () => {
      expect(syntaxError('(nurse OR doctor')).to.equal('unbalanced parenthesis at character 1');
      expect(syntaxError('nurse OR doctor)')).to.equal('unbalanced parenthesis at character 16');
      expect(syntaxError('nurse (OR doctor)')).to.equal('operator OR at character 8 has nothing on its left');
      expect(syntaxError('nurse OR')).to.equal('operator OR at character 7 has nothing on its right');
      expect(syntaxError('AND nurse')).to.equal('operator AND at character 1 has nothing on its left');
      expect(syntaxError('nurse & | doctor')).to.equal('operator & at character 7 has nothing on its right');
      expect(syntaxError('nurse NOT')).to.equal('operator NOT at character 7 has nothing on its right');
      expect(syntaxError('nurse ()')).to.equal('empty parentheses at character 7');
      expect(syntaxError('nurse "night shift')).to.equal('unterminated quote at character 7');
      expect(syntaxError('nurse :*')).to.equal('prefix marker :* at character 7 must follow a word');
      expect(syntaxError(`${'('.repeat(31)}a${')'.repeat(31)}`)).to.equal(
        'query nests too deeply at character 31 (at most 30 levels of parentheses and NOT)',
      );
      expect(syntaxError('é (')).to.equal('unbalanced parenthesis at character 3');
      expect(adv(`${'('.repeat(30)}nurse${')'.repeat(30)}`)).to.equal("'nurs'");
    });
  });

  describe('phraseQuery and plainQuery', () => {
    it('keep every word, in order at its distance, or anywhere', () => {
      expect(toTsquery(phraseQuery('The nurse on the night shift'))).to.equal("'nurs' <3> 'night' <-> 'shift'");
      expect(toTsquery(plainQuery('The nurse on the night shift'))).to.equal("'nurs' & 'night' & 'shift'");
      expect(phraseQuery('of the')).to.deep.equal(EMPTY);
    });
  });

  describe('hasPositiveTerm', () => {
    it('is false when a document with none of the words would match, or when nothing is left', () => {
      expect(hasPositiveTerm(parseAdvanced('nurse'))).to.equal(true);
      expect(hasPositiveTerm(parseAdvanced('nurse NOT manager'))).to.equal(true);
      expect(hasPositiveTerm(parseAdvanced('NOT manager'))).to.equal(false);
      expect(hasPositiveTerm(parseAdvanced('nurse OR NOT manager'))).to.equal(false);
      expect(hasPositiveTerm(parseAdvanced('the'))).to.equal(false);
      expect(hasPositiveTerm(parseAdvanced('NOT NOT nurse'))).to.equal(true);
    });
  });

  describe('matches (one document)', () => {
    const doc = tsvector('Senior data engineer for the data platform team; e-mail jobs@acme.com');
    it('follows the phrase, prefix and NOT semantics of @@', () => {
      expect(matches(phraseQuery('data engineer'), doc)).to.equal(true);
      expect(matches(phraseQuery('engineer data'), doc)).to.equal(false);
      expect(matches(phraseQuery('data platform'), doc)).to.equal(true);
      expect(matches(phraseQuery('engineer of the data'), doc)).to.equal(true);
      expect(matches(phraseQuery('engineer for data'), doc)).to.equal(false);
      expect(matches(phraseQuery('engineer data platform'), doc)).to.equal(false);
      expect(matches(parseAdvanced('plat:* NOT junior'), doc)).to.equal(true);
      expect(matches(parseAdvanced('e-mail'), doc)).to.equal(true);
      expect(matches(parseAdvanced('NOT senior'), doc)).to.equal(false);
      expect(matches(EMPTY, doc)).to.equal(false);
    });
  });

  it('prints lexemes quoted as PostgreSQL does', () => {
    const q: Query = {
      kind: 'and',
      args: [
        { kind: 'term', lexeme: "it's", prefix: false },
        { kind: 'term', lexeme: 'a\\b', prefix: true },
      ],
    };
    expect(toTsquery(q)).to.equal("'it''s' & 'a\\\\b':*");
  });

  describe('against PostgreSQL', () => {
    let client: pg.Client;
    let docs: string[];
    before(async () => {
      client = await connectOracle();
      const { titles, descriptions } = await corpusTexts();
      docs = [...titles.slice(0, 150), ...descriptions.slice(0, 150), ...TRICKY];
    });
    after(() => client.end());

    it('phraseQuery and plainQuery give phraseto_tsquery and plainto_tsquery', async () => {
      const { titles, descriptions } = await corpusTexts();
      const sentences = descriptions.slice(0, 300).flatMap((d) => d.split(/(?<=[.!?])\s+|\n/));
      const texts = [...titles, ...sentences, ...TRICKY, ...randomTexts(23, 2000, 8)];
      const rows = await batched<{ p: string; q: string }>(
        client,
        `SELECT phraseto_tsquery('jps_english', t)::text AS p, plainto_tsquery('jps_english', t)::text AS q
         FROM unnest($1::text[]) WITH ORDINALITY AS x(t, i) ORDER BY i`,
        texts,
      );
      expect(texts.length).to.be.greaterThan(5000);
      expect(texts.filter((t, i) => toTsquery(phraseQuery(t)) !== rows[i]!.p)).to.deep.equal([]);
      expect(texts.filter((t, i) => toTsquery(plainQuery(t)) !== rows[i]!.q)).to.deep.equal([]);
    });

    it('parseAdvanced gives what to_tsquery makes of the same query (1,000 generated queries without phrases)', async () => {
      const queries = generateQueries(docs, 1000, 5, false);
      const rows = await batched<{ q: string }>(
        client,
        "SELECT to_tsquery('jps_english', s)::text AS q FROM unnest($1::text[]) WITH ORDINALITY AS x(s, i) ORDER BY i",
        queries.map((q) => q.toTsquery),
      );
      const differ = queries.filter((q, i) => adv(q.advanced) !== rows[i]!.q).map((q) => q.advanced);
      expect(differ).to.deep.equal([]);
    });

    it('parseAdvanced with phrases gives the tsquery composed from phraseto_tsquery, to_tsquery, &&, || and !! (400 queries)', async () => {
      const queries = generateQueries(docs, 400, 9, true);
      const differ: string[] = [];
      for (const q of queries) {
        const { rows } = await client.query<{ q: string }>(q.sql.text, q.sql.params);
        if (adv(q.advanced) !== rows[0]!.q) differ.push(`${q.advanced} → ${adv(q.advanced)} / ${rows[0]!.q}`);
      }
      expect(differ).to.deep.equal([]);
    });

    it('matches() agrees with to_tsvector(doc) @@ query on every pair of 600 queries and 340 documents', async () => {
      const generated = generateQueries(docs, 400, 13, true).map((q) => parseAdvanced(q.advanced));
      const fromText = docs.slice(0, 100).flatMap((d) => {
        const words = d.split(/\s+/);
        const start = Math.floor(words.length / 3);
        const part = words.slice(start, start + 4).join(' ');
        return [phraseQuery(part), plainQuery(part)];
      });
      const queries = [...generated, ...fromText].filter((q) => toTsquery(q) !== '');
      const texts = [...docs, ''];
      const literals = queries.map(toTsquery);
      const { rows } = await client.query<{ i: string; j: string }>(
        `WITH d AS MATERIALIZED (SELECT i, to_tsvector('jps_english', t) AS v FROM unnest($1::text[]) WITH ORDINALITY AS x(t, i)),
              q AS MATERIALIZED (SELECT j, s::tsquery AS q FROM unnest($2::text[]) WITH ORDINALITY AS y(s, j))
         SELECT i, j FROM d, q WHERE v @@ q`,
        [texts, literals],
      );
      const pgPairs = new Set(rows.map((r) => `${Number(r.i) - 1}:${Number(r.j) - 1}`));
      const vectors = texts.map(tsvector);
      const differ: string[] = [];
      let agreeing = 0;
      for (const [j, q] of queries.entries()) {
        for (const [i, v] of vectors.entries()) {
          if (matches(q, v) === pgPairs.has(`${i}:${j}`)) agreeing += 1;
          else differ.push(`${literals[j]} on document ${i}`);
        }
      }
      expect(queries.length).to.be.greaterThan(500);
      expect(pgPairs.size, 'matching pairs').to.be.greaterThan(5000);
      expect(differ).to.deep.equal([]);
      expect(agreeing).to.equal(queries.length * texts.length);
      // The empty document is the last one: hasPositiveTerm is "does not match it".
      expect(queries.filter((q, j) => hasPositiveTerm(q) === pgPairs.has(`${texts.length - 1}:${j}`)).map(toTsquery)).to.deep.equal([]);
    });

    it('prints tsquery literals that PostgreSQL reads back unchanged', async () => {
      const queries = generateQueries(docs, 500, 21, true).map((q) => adv(q.advanced));
      const rows = await batched<{ q: string }>(
        client,
        'SELECT s::tsquery::text AS q FROM unnest($1::text[]) WITH ORDINALITY AS x(s, i) ORDER BY i',
        queries,
      );
      expect(queries.filter((q, i) => q !== rows[i]!.q)).to.deep.equal([]);
    });
  });
});
