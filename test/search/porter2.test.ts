import { expect } from 'chai';
import type pg from 'pg';
import { parseTokens } from '../../src/search/pg-parser.js';
import { englishStem, pgLower, porter2 } from '../../src/search/porter2.js';
import { ENGLISH_STOP_WORDS } from '../../src/search/stopwords.js';
import { batched, connectOracle, corpusTexts, random } from './support/oracle.js';

/** Words and stems of the Snowball documentation and of PostgreSQL's english_stem (Snowball 2.2.0). */
// prettier-ignore
const CLASSIC: [string, string][] = [
  ['consign', 'consign'], ['consigned', 'consign'], ['consigning', 'consign'], ['consignment', 'consign'],
  ['consist', 'consist'], ['consisted', 'consist'], ['consistency', 'consist'], ['consistent', 'consist'],
  ['consistently', 'consist'], ['consisting', 'consist'], ['consolation', 'consol'], ['consolatory', 'consolatori'],
  ['knack', 'knack'], ['knackeries', 'knackeri'], ['kneaded', 'knead'], ['kneeling', 'kneel'], ['knightly', 'knight'],
  ['caresses', 'caress'], ['ponies', 'poni'], ['ties', 'tie'], ['cries', 'cri'], ['gaps', 'gap'], ['gas', 'gas'],
  ['kiwis', 'kiwi'], ['hoping', 'hope'], ['hopping', 'hop'], ['luxuriated', 'luxuri'], ['generously', 'generous'],
  ['generate', 'generat'], ['communism', 'communism'], ['arsenal', 'arsenal'], ['universal', 'univers'],
  ['skies', 'sky'], ['skis', 'ski'], ['dying', 'die'], ['lying', 'lie'], ['news', 'news'], ['atlas', 'atlas'],
  ['succeeded', 'succeed'], ['proceeding', 'proceed'], ['herrings', 'herring'], ['inning', 'inning'],
  ['fluently', 'fluentli'], ['quickly', 'quick'], ['youth', 'youth'], ['yes', 'yes'], ['eyes', 'eye'], ['sayings', 'say'],
  ["ow's", 'ow'], ["'ow", 'ow'], ['organization', 'organ'], ['emergency', 'emerg'], ['geology', 'geolog'],
  ['enthusiastic', 'enthusiast'], ['relational', 'relat'], ['adjustable', 'adjust'], ['replacement', 'replac'],
  ['adoption', 'adopt'], ['controll', 'control'], ['roll', 'roll'], ['hopefulness', 'hope'], ['manager', 'manag'],
  ['engineering', 'engin'], ['nursing', 'nurs'], ['analytics', 'analyt'], ['café', 'café'], ['naïve', 'naïv'],
];

describe('the english_stem dictionary (Porter2)', function () {
  this.timeout(60_000);

  it('stems the classic Snowball vocabulary as Snowball 2.2.0 does', () => {
    for (const [word, stem] of CLASSIC) expect(porter2(word), word).to.equal(stem);
  });

  it('drops the stop words of english.stop, checked after lower-casing', () => {
    expect(ENGLISH_STOP_WORDS.size).to.equal(127);
    for (const word of ['the', 'The', 'AND', 'don', 's', 't', 'ourselves']) expect(englishStem(word), word).to.equal(null);
    expect(englishStem('Managers')).to.equal('manag');
  });

  it('keeps words of more than 1000 bytes lower-cased and unstemmed', () => {
    expect(englishStem(`${'Ab'.repeat(500)}ing`)).to.equal(`${'ab'.repeat(500)}ing`);
    expect(englishStem(`${'ab'.repeat(498)}ing`)).to.equal(`${'ab'.repeat(498)}`);
  });

  it('lower-cases one code point at a time, as glibc does (no final sigma, İ to i)', () => {
    expect(pgLower('ΣΟΦΙΑΣ')).to.equal('σοφιασ');
    expect(pgLower('İSTANBUL')).to.equal('istanbul');
    expect(pgLower('ÉCOLE Straße')).to.equal('école straße');
  });

  describe('against PostgreSQL', () => {
    let client: pg.Client;
    before(async () => {
      client = await connectOracle();
    });
    after(() => client.end());

    it("agrees with ts_lexize('english_stem', w) on every word of the corpus, the classic list and 20,000 made-up words", async () => {
      const { titles, descriptions } = await corpusTexts();
      const words = new Set(CLASSIC.map(([w]) => w));
      for (const text of [...titles, ...descriptions]) {
        for (const t of parseTokens(text)) if (t.type.includes('word') || t.type.startsWith('hword')) words.add(t.text);
      }
      const r = random(3);
      const letters = "aeiouybcdfghjklmnpqrstvwxzaeiouylnrstsdgey'éY";
      const suffixes = [
        '',
        'ing',
        'ed',
        'ly',
        'edly',
        'ingly',
        'eed',
        'ies',
        'ied',
        's',
        'ss',
        'sses',
        'us',
        'ational',
        'tional',
        'enci',
        'anci',
        'izer',
        'bli',
        'alli',
        'entli',
        'ousli',
        'ization',
        'ation',
        'ator',
        'alism',
        'aliti',
        'iviti',
        'biliti',
        'logi',
        'fulli',
        'lessli',
        'li',
        'icate',
        'ative',
        'alize',
        'iciti',
        'ical',
        'ful',
        'ness',
        'al',
        'ance',
        'ence',
        'er',
        'ic',
        'able',
        'ible',
        'ant',
        'ement',
        'ment',
        'ent',
        'ism',
        'ate',
        'iti',
        'ous',
        'ive',
        'ize',
        'sion',
        'tion',
        'e',
        'l',
        'll',
        "'s",
        "'",
        "'s'",
        'y',
        'at',
        'bl',
        'iz',
        'bb',
        'dd',
        'ff',
        'gg',
        'mm',
        'nn',
        'pp',
        'rr',
        'tt',
      ];
      const prefixes = ['', '', '', 'gener', 'commun', 'arsen', "'", 'y'];
      const made = new Set<string>();
      while (made.size < 20_000) {
        let w = r.pick(prefixes);
        for (let n = r.int(7); n > 0; n -= 1) w += r.pick([...letters]);
        w += r.pick(suffixes) + (r.next() < 0.3 ? r.pick(suffixes) : '');
        made.add(w);
      }
      const all = [...words, ...made];
      const rows = await batched<{ l: string[] }>(
        client,
        "SELECT ts_lexize('english_stem', w) AS l FROM unnest($1::text[]) WITH ORDINALITY AS x(w, i) ORDER BY i",
        all,
        5000,
      );
      const differ = all.filter((w, i) => englishStem(w) !== (rows[i]!.l[0] ?? null));
      expect(words.size).to.be.greaterThan(2000);
      expect(differ, `${differ.length} of ${all.length} words stem differently`).to.deep.equal([]);
    });
  });
});
