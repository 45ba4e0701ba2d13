// The prices of the requests model (spec 8.4), as src/metering/prices.ts declares them once: the unit
// price of each route class and the units of an answer. The store functions are given these (named
// arguments); test/http/metering.test.ts checks what the store charges with them.

import { expect } from 'chai';
import { requestUnits, ROUTE_CLASSES, unitMicros } from '../../src/metering/prices.js';

describe('pricing (requests model)', () => {
  it('prices a keyword search at 200 micro-USD a unit, the account settings at nothing, every other class at 20', () => {
    const prices = Object.fromEntries(ROUTE_CLASSES.map((c) => [c, unitMicros(c)]));
    expect(prices).to.deep.equal({
      jobs_list: 20,
      jobs_search: 200,
      jobs_count: 20,
      jobs_get: 20,
      jobs_changes: 20,
      exports: 20,
      companies: 20,
      account: 0,
      usage: 20,
      other: 20,
    });
  });

  it('counts one unit per 100 records, at least one, and none for one job fetched', () => {
    expect([0, 1, 100, 101, 250, 1000].map((records) => requestUnits('jobs_list', records))).to.deep.equal([1, 1, 1, 2, 3, 10]);
    expect(requestUnits('jobs_get', 1)).to.equal(0);
    expect(requestUnits('exports', 100_000)).to.equal(1000);
  });
});
