// The yearly pay of postings and jobs, as the job documents are written (the macros of
// sql/serve/catalog.sql): per year by interval, and a job's range in the currency most of its postings use.

import { expect } from 'chai';
import { QueryEngine } from '../../src/db/engine.js';
import { namedScripts } from '../../src/db/sql-files.js';

const { macros } = namedScripts('serve/catalog.sql', ['macros']);

interface Pay {
  currency: string;
  floor: number | null;
  ceiling: number | null;
  interval: string;
}

describe('yearly pay (the job documents)', () => {
  let engine: QueryEngine;

  before(async () => {
    engine = await QueryEngine.open({ timeoutMs: 10_000 });
    await engine.withConnection(async (c) => {
      for (const statement of macros) await c.run(statement);
    });
  });
  after(() => engine.close());

  /** The value of `expression` over postings with these pays, as JSON. */
  async function evaluate(expression: string, pays: (Pay | null)[]): Promise<unknown> {
    const [[json]] = (await engine.rows(
      `SELECT to_json(${expression})::VARCHAR FROM (SELECT list_transform(from_json($pays,
         '[{"currency":"VARCHAR","floor":"DOUBLE","ceiling":"DOUBLE","interval":"VARCHAR"}]'), p -> struct_pack(pay := p)) AS postings)`,
      { pays: JSON.stringify(pays) },
    )) as [[string]];
    return JSON.parse(json);
  }
  const annualPay = (pays: (Pay | null)[]) => evaluate('annual_pay(postings)', pays);
  const pay = (currency: string, floor: number | null, ceiling: number | null, interval: string): Pay => ({
    currency,
    floor,
    ceiling,
    interval,
  });

  it('turns each interval into a year: hour x 2,080, day x 260, week x 52, month x 12; unknown has none', async () => {
    const annual = async (p: Pay) => evaluate('annual(postings[1].pay)', [p]);
    expect(await annual(pay('USD', 20.5, 30, 'hour'))).to.deep.equal({ floor: 42640, ceiling: 62400 });
    expect(await annual(pay('USD', 200, null, 'day'))).to.deep.equal({ floor: 52000, ceiling: null });
    expect(await annual(pay('USD', 1000, 1200, 'week'))).to.deep.equal({ floor: 52000, ceiling: 62400 });
    expect(await annual(pay('INR', 50000, 80000, 'month'))).to.deep.equal({ floor: 600000, ceiling: 960000 });
    expect(await annual(pay('GBP', 40000, 45000, 'year'))).to.deep.equal({ floor: 40000, ceiling: 45000 });
    expect(await annual(pay('USD', 70000, 75000, 'unknown'))).to.equal(null);
  });

  it('gives a job the lowest floor and the highest ceiling of its postings, of those with a known interval', async () => {
    expect(
      await annualPay([pay('USD', 30, 40, 'hour'), pay('USD', 60000, 90000, 'year'), null, pay('USD', 1, 1_000_000, 'unknown')]),
    ).to.deep.equal({
      currency: 'USD',
      floor: 60000,
      ceiling: 90000,
      source: 'posted',
    });
  });

  it('keeps to the currency most postings state, never mixing currencies; of two as common, the first alphabetically', async () => {
    const eur = pay('EUR', 40000, 50000, 'year');
    const usd = pay('USD', 30, 40, 'hour');
    expect(await annualPay([usd, eur, eur])).to.deep.include({ currency: 'EUR', floor: 40000, ceiling: 50000 });
    expect(await annualPay([usd, eur])).to.deep.include({ currency: 'EUR' });
    expect(await annualPay([eur, usd, usd])).to.deep.include({ currency: 'USD', floor: 62400, ceiling: 83200 });
  });

  it('bands the middle of a yearly range by its currency, from an edge up to the next, the last open', async () => {
    const band = async (currency: string, floor: number | null, ceiling: number | null) =>
      evaluate(`pay_band(struct_pack(currency := '${currency}', floor := ${floor}::DOUBLE, ceiling := ${ceiling}::DOUBLE))`, []);
    expect(await band('USD', 62400, 83200)).to.equal('USD 50000-75000');
    expect(await band('USD', 50000, 100000)).to.equal('USD 75000-100000');
    expect(await band('USD', 10000, null)).to.equal('USD 0-25000');
    expect(await band('EUR', null, 250000)).to.equal('EUR 200000+');
    expect(await band('INR', 500000, 900000)).to.equal('INR 600000-1000000');
    expect(await band('BRL', 40000, 50000)).to.equal('BRL 30000-60000');
    expect(await band('USD', null, null)).to.equal(null);
  });

  it('is null when no posting states pay with a known interval', async () => {
    expect(await annualPay([])).to.equal(null);
    expect(await annualPay([null, pay('USD', 1, 2, 'unknown')])).to.equal(null);
  });

  it("takes a description's pay only when no posting states pay with a known interval", async () => {
    const jobPay = (pays: (Pay | null)[], stated: Pay | null) =>
      evaluate(
        `job_pay(postings, from_json('${JSON.stringify(stated)}', '{"currency":"VARCHAR","floor":"DOUBLE","ceiling":"DOUBLE","interval":"VARCHAR"}'))`,
        pays,
      );
    const described = pay('USD', 18, 22, 'hour');
    expect(await jobPay([null], described)).to.deep.equal({ currency: 'USD', floor: 37440, ceiling: 45760, source: 'description' });
    expect(await jobPay([pay('USD', 1, 2, 'unknown')], described)).to.deep.include({ source: 'description' });
    expect(await jobPay([pay('USD', 50000, 60000, 'year')], described)).to.deep.equal({
      currency: 'USD',
      floor: 50000,
      ceiling: 60000,
      source: 'posted',
    });
    expect(await jobPay([null], pay('USD', 18, 22, 'unknown')), 'a description pay without a known interval').to.equal(null);
    expect(await jobPay([null], null)).to.equal(null);
  });
});
