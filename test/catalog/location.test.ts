import { expect } from 'chai';
import { parseLocation } from '../../src/catalog/normalise/location.js';
import { buildPosting } from '../../src/catalog/generator/posting.js';
import { OpeningState } from '../../src/catalog/generator/opening-state.js';
import { buildWorld } from '../../src/catalog/generator/world.js';

const SF = {
  city: 'San Francisco',
  state: 'CA',
  country: 'US',
  msa: { cbsa_code: '41860', name: 'San Francisco-Oakland-Fremont, CA' },
  remote: false,
};

describe('parseLocation', () => {
  it('reads the US formats collectors deliver into city, state, country and metro', () => {
    for (const raw of [
      'San Francisco, CA',
      'San Francisco, California',
      'San Francisco, CA, US',
      'San Francisco, California, United States',
      'US-CA-San Francisco',
      'SAN FRANCISCO, CA',
    ]) {
      expect(parseLocation(raw), raw).to.deep.equal(SF);
    }
  });

  it('reads remote locations with and without a country', () => {
    expect(parseLocation('Remote - United States')).to.deep.equal({ city: null, state: null, country: 'US', msa: null, remote: true });
    for (const raw of ['Remote', 'Anywhere', 'REMOTE'])
      expect(parseLocation(raw), raw).to.deep.equal({ city: null, state: null, country: null, msa: null, remote: true });
    expect(parseLocation('Remote (Canada)')?.country).to.equal('CA');
    expect(parseLocation('US - Remote')?.country).to.equal('US');
  });

  it('reads reasonable human variants: state names, USA, U.S., extra spaces and any case', () => {
    for (const raw of [
      'san francisco , california',
      '  San   Francisco,CA ',
      'San Francisco, CA, USA',
      'San Francisco, Calif, U.S.'.replace('Calif', 'California'),
      'San Francisco CA',
      'San Francisco, CA 94105',
    ]) {
      expect(parseLocation(raw), raw).to.deep.equal(SF);
    }
    expect(parseLocation('Ft. Lauderdale, FL')?.city).to.equal('Fort Lauderdale');
    expect(parseLocation('Saint Louis, MO')?.msa?.cbsa_code).to.equal('41180');
    expect(parseLocation('saint louis, mo')?.city).to.equal('St. Louis');
    expect(parseLocation('Washington, D.C.')?.msa?.cbsa_code).to.equal('47900');
    expect(parseLocation('Austin, TX (Hybrid)')).to.include({ city: 'Austin', state: 'TX', remote: false });
  });

  it('gives ISO 3166-2 subdivision codes without the country prefix outside the US', () => {
    expect(parseLocation('Toronto, ON')).to.deep.include({ city: 'Toronto', state: 'ON', country: 'CA', msa: null });
    expect(parseLocation('London, England, United Kingdom')).to.deep.include({ city: 'London', state: 'ENG', country: 'GB' });
    expect(parseLocation('München, Bayern, Deutschland')).to.deep.include({ city: 'Munich', state: 'BY', country: 'DE' });
    expect(parseLocation('Bangalore, Karnataka, India')).to.deep.include({ city: 'Bengaluru', state: 'KA', country: 'IN' });
    expect(parseLocation('Zurich, Switzerland')).to.deep.include({ city: 'Zürich', state: 'ZH', country: 'CH' });
    expect(parseLocation('Perth, WA')).to.deep.include({ city: 'Perth', state: 'WA', country: 'AU' });
  });

  it('tells apart names that read differently with a state or a country', () => {
    expect(parseLocation('London, ON')?.country).to.equal('CA');
    expect(parseLocation('Ontario, CA')).to.deep.include({ city: 'Ontario', state: 'CA', country: 'US' });
    expect(parseLocation('Ontario, Canada')).to.deep.include({ city: null, state: 'ON', country: 'CA' });
    expect(parseLocation('Berlin, DE')?.country).to.equal('DE');
    expect(parseLocation('Dover, DE')?.country).to.equal('US');
    expect(parseLocation('Portland, ME')?.msa?.cbsa_code).to.equal('38860');
    expect(parseLocation('Portland, OR')?.msa?.cbsa_code).to.equal('38900');
  });

  it('keeps a city it does not know when the state or country is clear, without a metro', () => {
    expect(parseLocation('Smallville, KS')).to.deep.equal({ city: 'Smallville', state: 'KS', country: 'US', msa: null, remote: false });
    expect(parseLocation('California')).to.deep.equal({ city: null, state: 'CA', country: 'US', msa: null, remote: false });
  });

  it('returns null for text it cannot read', () => {
    for (const raw of ['', 'Multiple Locations', '12345', '???', 'x'.repeat(400)]) expect(parseLocation(raw), raw).to.equal(null);
  });

  it('reads every location string of a generated corpus as the place the generator meant', () => {
    const world = buildWorld({ jobs: 1500, seed: 11, days: 2, start: '2026-11-18' });
    let checked = 0;
    for (let day = 1; day <= 2; day += 1) {
      for (let index = 0; index < world.openings.firstIndex[day + 1]!; index += 1) {
        const state = new OpeningState(world, index);
        for (const slot of state.listed(day)) {
          for (const { raw, truth } of buildPosting(state, slot, day).locations) {
            expect(parseLocation(raw), raw).to.deep.equal(truth);
            checked += 1;
          }
        }
      }
    }
    expect(checked).to.be.greaterThan(3000);
  });

  it('parses a hundred thousand strings in well under a second, and twenty thousand distinct ones in about as long', () => {
    const samples = [
      'San Francisco, CA',
      'Remote - United States',
      'Toronto, Ontario, Canada',
      'US-TX-Austin',
      'München, Bayern, DE',
      'Springfield, IL',
    ];
    let began = performance.now();
    for (let i = 0; i < 100_000; i += 1) parseLocation(samples[i % samples.length]!);
    expect(performance.now() - began).to.be.lessThan(1000);
    began = performance.now();
    for (let i = 0; i < 20_000; i += 1) parseLocation(`Town ${i}, ${['TX', 'Ontario', 'DE', 'California, USA'][i % 4]!}`);
    expect(performance.now() - began).to.be.lessThan(2000);
  });
});
