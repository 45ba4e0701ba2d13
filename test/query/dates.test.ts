import { expect } from 'chai';
import { isDateOrDateTime, parseDateBound, parseDateTime } from '../../src/query/dates.js';

describe('dates of the API', () => {
  it('reads a plain date as the start or the end of that UTC day', () => {
    expect(parseDateBound('2026-11-21', 'start')?.toISOString()).to.equal('2026-11-21T00:00:00.000Z');
    expect(parseDateBound('2026-11-21', 'end')?.toISOString()).to.equal('2026-11-21T23:59:59.999Z');
  });

  it('reads RFC 3339 date-times with any zone', () => {
    expect(parseDateTime('2026-11-21T10:00:00Z')?.toISOString()).to.equal('2026-11-21T10:00:00.000Z');
    expect(parseDateTime('2026-11-21T10:00:00.25+02:00')?.toISOString()).to.equal('2026-11-21T08:00:00.250Z');
    expect(parseDateTime('2026-11-21T10:00:00-05:30')?.toISOString()).to.equal('2026-11-21T15:30:00.000Z');
    // "+02:00" sent unencoded in a query string arrives as " 02:00".
    expect(parseDateTime('2026-11-21T10:00:00 02:00')?.toISOString()).to.equal('2026-11-21T08:00:00.000Z');
  });

  it('refuses impossible dates, a date-time without a zone and other shapes', () => {
    for (const bad of [
      '2026-02-29',
      '2026-13-01',
      '2026-11-31',
      '2026-11-21T10:00:00',
      '2026-11-21T24:00:00Z',
      '21/11/2026',
      'yesterday',
      '2026-11-21T10:00Z',
    ]) {
      expect(isDateOrDateTime(bad), bad).to.equal(false);
    }
    expect(isDateOrDateTime('2028-02-29')).to.equal(true);
  });
});
