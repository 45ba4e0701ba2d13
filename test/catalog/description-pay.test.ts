import { expect } from 'chai';
import { Duck } from '../../src/db/duckdb.js';
import { defineMacros } from '../../src/catalog/publish/stages.js';

describe('pay stated in a description', () => {
  let duck: Duck;
  before(async () => {
    duck = await Duck.open();
    await defineMacros(duck);
  });
  after(() => duck.close());

  const read = async (text: string | null) => (await duck.one<{ pay: unknown }>('SELECT stated_pay($text) AS pay', { text }))!.pay;
  const pay = (currency: string, floor: number | null, ceiling: number | null, interval: string) => ({
    currency,
    floor,
    ceiling,
    interval,
  });

  it('reads a range, a floor ("from"), a ceiling ("up to") or one amount, with its currency and interval', async () => {
    expect(await read('Compensation: $55,500 - $72,000 per year.')).to.deep.equal(pay('USD', 55500, 72000, 'year'));
    expect(await read('Starting pay is from £30,000 a year, based on experience.')).to.deep.equal(pay('GBP', 30000, null, 'year'));
    expect(await read('The expected salary is up to €25.50 per hour.')).to.deep.equal(pay('EUR', null, 25.5, 'hour'));
    expect(await read('Pay: USD 40/hr')).to.deep.equal(pay('USD', 40, 40, 'hour'));
    expect(await read('$50k-$60k annually')).to.deep.equal(pay('USD', 50000, 60000, 'year'));
    expect(await read('CA$31.25 - CA$40 per hour')).to.deep.equal(pay('CAD', 31.25, 40, 'hour'));
    expect(await read('CHF 120,000 - CHF 140,000 per year')).to.deep.equal(pay('CHF', 120000, 140000, 'year'));
    expect(await read('₹1,200,000 - ₹1,500,000 per year')).to.deep.equal(pay('INR', 1200000, 1500000, 'year'));
    expect(await read('R$ 4,000 - R$ 6,000 per month')).to.deep.equal(pay('BRL', 4000, 6000, 'month'));
  });

  it('reads nothing from amounts without a currency or an interval', async () => {
    for (const text of [
      null,
      '',
      'We have a 401(k) and $5 million in funding.',
      'Lift up to 50 lbs per hour.',
      'Serve 200 guests per day.',
    ])
      expect(await read(text), String(text)).to.equal(null);
  });
});
