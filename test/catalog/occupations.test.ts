import { expect } from 'chai';
import { Duck } from '../../src/db/duckdb.js';
import { classifyTexts, classifyTitles, defineMacros, loadSocLexicon } from '../../src/catalog/publish/stages.js';
import { OCCUPATIONS } from '../../src/catalog/reference/occupations.js';
import { ALTERNATE_TITLES, OCCUPATION_SOC, SOC_TITLES } from '../../src/catalog/reference/soc.js';

describe('occupation codes (SOC 2018) from job titles', () => {
  let duck: Duck;
  before(async () => {
    duck = await Duck.open();
    await defineMacros(duck);
  });
  after(() => duck.close());

  async function classify(titles: string[]): Promise<Map<string, { soc_code: string; title: string } | null>> {
    await duck.run('CREATE OR REPLACE TABLE titles_to_classify (title VARCHAR)');
    for (const title of titles) await duck.run('INSERT INTO titles_to_classify VALUES ($title)', { title });
    await classifyTitles(duck);
    const rows = await duck.all<{ title: string; occupation: { soc_code: string; title: string } | null }>(
      'SELECT t.title, o.occupation FROM titles_to_classify t LEFT JOIN title_occupations o USING (title)',
    );
    return new Map(rows.map((r) => [r.title, r.occupation]));
  }

  it('gives every occupation of the generator, and every alternate title, a detailed code with its official title', () => {
    for (const occupation of OCCUPATIONS) expect(occupation.soc, occupation.title).to.equal(OCCUPATION_SOC[occupation.title]);
    for (const [title, code] of Object.entries({ ...OCCUPATION_SOC, ...ALTERNATE_TITLES })) {
      expect(code, title).to.match(/^\d{2}-\d{3}[1-9]$/);
      expect(SOC_TITLES[code], `${title} (${code})`).to.be.a('string');
    }
  });

  it('reads the occupation through seniority, abbreviations, case, requisitions, places and qualifiers', async () => {
    const cases: Record<string, string | null> = {
      'Software Engineer': '15-1252',
      'Sr. Software Engineer - Payments (R-10234)': '15-1252',
      'Principal Software Engineer': '15-1252',
      'REGISTERED NURSE - ICU': '29-1141',
      'Travel Nurse, Nursing': '29-1141',
      'RN - Med Surg [Remote]': '29-1141',
      'Nurse Manager': '11-9111',
      'Asst. Store Mgr': '41-1011',
      'Admin Assistant - Chicago, IL': '43-6014',
      'Shipping & Receiving Clerk': '43-5071',
      'Data Engineer - Machine Learning Engineer': '15-1243',
      'Lead Teacher (Special Education)': '25-2021',
      'Widget Wrangler': null,
    };
    const got = await classify(Object.keys(cases));
    for (const [title, code] of Object.entries(cases)) expect(got.get(title)?.soc_code ?? null, title).to.equal(code);
    expect(got.get('Software Engineer')).to.deep.equal({ soc_code: '15-1252', title: 'Software Developers' });
  });

  it('reads the occupation a description names when the title names none, and not one it mentions in passing', async () => {
    await loadSocLexicon(duck);
    const texts: Record<string, string | null> = {
      'Harbor Health is adding a Registered Nurse to its ICU. Two years of experience as a Registered Nurse (RN) are required.': '29-1141',
      'We need a forklift operator for nights. Forklift operators move pallets; experience as an operator is a plus.': '53-7051',
      'Our 40 associates keep the store open. You will work with our drivers and dispatchers every day.': null,
      'Join a friendly team in Denver. Great pay and benefits.': null,
    };
    await duck.run('CREATE OR REPLACE TABLE texts_to_classify (key VARCHAR, text VARCHAR)');
    for (const text of Object.keys(texts)) await duck.run('INSERT INTO texts_to_classify VALUES ($text, $text)', { text });
    await classifyTexts(duck);
    const rows = await duck.all<{ key: string; code: string | null }>(
      'SELECT t.key, o.occupation.soc_code AS code FROM texts_to_classify t LEFT JOIN text_occupations o USING (key)',
    );
    expect(Object.fromEntries(rows.map((r) => [r.key, r.code]))).to.deep.equal(texts);
  });
});
