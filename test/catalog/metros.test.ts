import { expect } from 'chai';
import { join } from 'node:path';
import { latestPointer, readPointer, snapshotDir } from '../../src/catalog/layout.js';
import { parseLocation } from '../../src/catalog/normalise/location.js';
import { CITIES } from '../../src/catalog/reference/gazetteer.js';
import { Duck } from '../../src/db/duckdb.js';
import { startTestAppWithCatalog, type TestApp } from '../support/app.js';

// Principal cities of the generator's gazetteer and their metropolitan statistical area in the July 2023 delineation
// (OMB Bulletin 23-01), written out here rather than read from the reference table so that this checks it: every
// smaller city, then a few of the larger metros.
const SMALLER_METRO_CITIES = `
  AK Fairbanks 21820 | AL Mobile 33660, Montgomery 33860, Tuscaloosa 46220, Dothan 20020 | AR Jonesboro 27860, Fort Smith 22900 |
  AZ Flagstaff 22380, Yuma 49740, Prescott 39150 | CA Redding 39820, Chico 17020, San Luis Obispo 42020, Santa Cruz 42100, Salinas 41500,
  Santa Rosa 42220, Santa Barbara 42200 | DE Dover 20100 |
  FL Tallahassee 45220, Pensacola 37860, Ocala 36100, Naples 34940, Panama City 37460 | GA Macon 31420, Athens 12020, Columbus 17980 |
  IA Iowa City 26980, Cedar Rapids 16300, Sioux City 43580 | IL Rockford 40420, Peoria 37900, Champaign 16580, Springfield 44100 |
  IN South Bend 43780, Evansville 21780, Fort Wayne 23060, Bloomington 14020, Lafayette 29200, Terre Haute 45460 | KS Lawrence 29940, Topeka 45820 |
  KY Bowling Green 14540, Owensboro 36980 | LA Lafayette 29180, Lake Charles 29340 | ME Bangor 12620 |
  MI Kalamazoo 28020, Flint 22420, Saginaw 40980, Traverse City 45900 | MN Duluth 20260, St. Cloud 41060 | MO Springfield 44180, Columbia 17860 |
  MS Hattiesburg 25620, Gulfport 25060 | MT Bozeman 14580, Missoula 33540, Billings 13740, Helena 25740 | NC Wilmington 48900, Greenville 24780 |
  ND Bismarck 13900, Fargo 22020, Grand Forks 24220 | NH Manchester 31700, Nashua 31700 | NJ Trenton 45940, Atlantic City 12100 |
  NM Santa Fe 42140, Las Cruces 29740 | NV Carson City 16180 | NY Ithaca 27060, Binghamton 13780, Utica 46540 | OK Lawton 30020 |
  OR Medford 32780, Bend 13460, Salem 41420 | PA Erie 21500, State College 44300 | SD Sioux Falls 43620, Rapid City 39660 |
  TN Johnson City 27740, Kingsport 28700, Clarksville 17300, Jackson 27180 |
  TX Lubbock 31180, Amarillo 11100, Laredo 29700, Waco 47380, Midland 33260, Odessa 36220, Tyler 46340, Beaumont 13140, Corpus Christi 18580,
  Brownsville 15180 | UT St. George 41100, Logan 30860 | VA Charlottesville 16820, Roanoke 40220, Lynchburg 31340 | VT Burlington 15540 |
  WA Yakima 49420, Bellingham 13380, Olympia 36500 | WI Eau Claire 20740, Green Bay 24580, Appleton 11540 |
  WV Morgantown 34060, Wheeling 48540 | WY Cheyenne 16940, Casper 16220`;
const LARGER_METRO_CITIES = `
  CA San Francisco 41860, Oakland 41860, Los Angeles 31080, Fresno 23420 | IL Chicago 16980 | ME Portland 38860 | NY New York 35620 |
  OR Portland 38900 | WA Seattle 42660, Vancouver 38900 | MO Kansas City 28140 | KS Kansas City 28140 | NM Albuquerque 10740`;
// Principal cities of micropolitan statistical areas: not metropolitan, so no MSA.
const MICROPOLITAN_CITIES = ['Montpelier VT', 'Juneau AK', 'Concord NH', 'Augusta ME', 'Hilo HI'];

function metros(table: string): Map<string, string> {
  const expected = new Map<string, string>();
  for (const group of table.split('|')) {
    const [, state, list] = /^\s*([A-Z]{2}) (.*)$/s.exec(group)!;
    for (const entry of list!.split(',')) {
      const [, city, code] = /^\s*(.+) (\d{5})\s*$/.exec(entry)!;
      expected.set(`${city} ${state}`, code!);
    }
  }
  return expected;
}

describe('US metropolitan statistical areas of generated locations', function () {
  this.timeout(120_000);
  const smaller = metros(SMALLER_METRO_CITIES);
  const expected = new Map([...smaller, ...metros(LARGER_METRO_CITIES)]);
  const usCities = CITIES.filter((c) => c.country === 'US');

  it('gives every US city the generator can place a job in its MSA code, and none to a micropolitan city', () => {
    expect(smaller.size + MICROPOLITAN_CITIES.length).to.equal(118);
    for (const city of usCities) {
      const key = `${city.name} ${city.state}`;
      if (MICROPOLITAN_CITIES.includes(key)) expect(city.msa, key).to.equal(null);
      else expect(city.msa?.cbsa_code, key).to.match(/^\d{5}$/);
      if (expected.has(key)) expect(city.msa?.cbsa_code, key).to.equal(expected.get(key));
    }
    const known = new Set(usCities.map((c) => `${c.name} ${c.state}`));
    for (const key of [...expected.keys(), ...MICROPOLITAN_CITIES]) expect(known.has(key), `${key} is not in the gazetteer`).to.equal(true);
  });

  it('reads the MSA back from the location strings collectors write', () => {
    for (const [key, code] of expected) {
      const [, city, state] = /^(.+) ([A-Z]{2})$/.exec(key)!;
      for (const raw of [`${city}, ${state}`, `${city}, ${state}, US`, `US-${state}-${city}`])
        expect(parseLocation(raw)?.msa?.cbsa_code, raw).to.equal(code);
    }
    expect(parseLocation('Las Cruces, New Mexico')?.msa).to.deep.equal({ cbsa_code: '29740', name: 'Las Cruces, NM' });
    for (const key of MICROPOLITAN_CITIES)
      expect(parseLocation(key.replace(/ ([A-Z]{2})$/, ', $1'))).to.include({ msa: null, country: 'US' });
  });

  describe('GET /v1/jobs?msa=', () => {
    let app: TestApp;
    let key: string;

    before(async () => {
      app = await startTestAppWithCatalog({ jobs: 1200, seed: 17 });
      ({ key } = await app.account());
    });
    after(() => app.close());

    /** The smaller metros (single principal city) with the most published jobs. */
    async function busiestSmallerMetros(): Promise<{ city: string; state: string; code: string }[]> {
      const watermark = (await readPointer(latestPointer(app.config.snapshotsDir)))!;
      const duck = await Duck.open();
      try {
        const rows = await duck.all<{ city: string; state: string; jobs: number }>(
          `SELECT l.city, l.state, count(DISTINCT job_id)::INT AS jobs
           FROM read_parquet('${join(snapshotDir(app.config.snapshotsDir, watermark), 'jobs*.parquet')}'), unnest(locations) AS t(l)
           WHERE l.country = 'US' GROUP BY ALL ORDER BY jobs DESC, l.city`,
        );
        const codes = [...smaller.values()];
        const alone = new Map([...smaller].filter(([, code]) => codes.indexOf(code) === codes.lastIndexOf(code)));
        return rows
          .filter((r) => alone.has(`${r.city} ${r.state}`))
          .slice(0, 4)
          .map((r) => ({ city: r.city, state: r.state, code: alone.get(`${r.city} ${r.state}`)! }));
      } finally {
        duck.close();
      }
    }

    const jobIds = async (query: string) => {
      const r = await app.api.get<{ data: { job_id: string }[]; next_cursor: string | null }>(`/v1/jobs?${query}&fields=job_id&limit=100`, {
        key,
      });
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
      expect(r.body.next_cursor).to.equal(null);
      return r.body.data.map((j) => j.job_id).sort();
    };

    it('finds with msa=<code> the jobs that city=<name> finds, for the smaller metros with the most jobs', async () => {
      const metros = await busiestSmallerMetros();
      expect(metros).to.have.length(4);
      for (const { city, state, code } of metros) {
        const byCity = await jobIds(`city=${encodeURIComponent(city)}&state=${state}`);
        expect(byCity.length, city).to.be.greaterThan(0);
        expect(await jobIds(`msa=${code}`), `msa=${code} (${city}, ${state})`).to.deep.equal(byCity);
      }
    });
  });
});
