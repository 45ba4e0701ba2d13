import { expect } from 'chai';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestAppWithCatalog, type TestApp } from '../support/app.js';
import type { ApiResponse } from '../support/client.js';
import { hold, type Held } from '../support/hold.js';

interface ErrorBody {
  error: { code: string; message: string };
}
interface Page {
  data: { job_id: string }[];
  next_cursor: string | null;
}
interface UsageEvent {
  request_id: string;
  occurred_at: string;
  route: string;
  route_class: string;
  status: number | null;
  api_key_id: string;
  records_charged: number;
  settlement_status: string;
}
interface Analytics {
  data: { date: string; group?: string; requests: number; records: number; errors: number; refused: number; overage_usd: number }[];
  totals: { requests: number; records: number; errors: number; refused: number; overage_usd: number };
}

const NOW = new Date('2026-11-25T10:00:30Z');
const noWait = { noWait: true };

describe('metering', function () {
  this.timeout(240_000);
  let app: TestApp;

  before(async () => {
    app = await startTestAppWithCatalog({ jobs: 300, seed: 11 });
  });
  beforeEach(() => app.setNow(NOW));
  after(async () => {
    app?.setNow(undefined);
    await app?.close();
  });

  const header = (r: { headers: Headers }, name: string) => r.headers.get(name);
  const num = (r: { headers: Headers }, name: string) => Number(r.headers.get(name));
  const settled = () => app.service.ctx.meter.idle();
  // What the server settled in memory reaches the store within milliseconds: read once it has.
  const month = async (accountId: string) => {
    await settled();
    const [row] = await app.store.query<{ records: number; requests: number; overage: number; drawn: number }>(
      'SELECT records_used::int AS records, requests_used::int AS requests, overage_used_micros::int AS overage, requests_drawn::int AS drawn FROM usage_months WHERE account_id = $1 AND month = $2::date',
      [accountId, '2026-11-01'],
    );
    return row!;
  };
  const ledger = async (accountId: string) => {
    await settled();
    return app.store.query<{ request_id: string; status: number; records_charged: number; settlement_status: string; route_class: string }>(
      'SELECT request_id, status, records_charged::int AS records_charged, settlement_status, route_class FROM ledger WHERE account_id = $1 ORDER BY seq',
      [accountId],
    );
  };

  describe('the request window', () => {
    it('admits 30 requests per 60 seconds on the free plan, refuses the 31st with Retry-After, and opens again', async () => {
      const { key, accountId } = await app.account({ plan: 'free' });
      for (let i = 1; i <= 30; i++) {
        const r = await app.api.get('/v1/jobs/count', { key, ...noWait });
        expect(r.status).to.equal(200);
        expect(num(r, 'RateLimit-Remaining')).to.equal(30 - i);
      }
      const refused = await app.api.get<ErrorBody>('/v1/jobs/count', { key, ...noWait });
      expect(refused.status).to.equal(429);
      expect(refused.body.error.code).to.equal('rate_limited');
      expect(header(refused, 'RateLimit-Policy')).to.equal('30;w=60');
      expect(num(refused, 'RateLimit-Remaining')).to.equal(0);
      expect(num(refused, 'Retry-After')).to.equal(30); // the window started at 10:00:00
      await settled();
      expect(await ledger(accountId)).to.have.length(30);
      expect((await month(accountId)).requests).to.equal(30);
      app.setNow(new Date(NOW.getTime() + 30_000));
      expect((await app.api.get('/v1/jobs/count', { key, ...noWait })).status).to.equal(200);
    });

    it('counts every key of the account together, 60 on a paid plan, and a failed request too', async () => {
      const { key, accountId } = await app.account({ plan: 'paid-5k' });
      const { issueKey } = await import('../../src/metering/keys.js');
      const second = (await issueKey(app.store, accountId)).key;
      for (let i = 0; i < 30; i++) expect((await app.api.get('/v1/jobs?limit=abc', { key, ...noWait })).status).to.equal(400);
      for (let i = 0; i < 30; i++) expect((await app.api.get('/v1/jobs/count', { key: second, ...noWait })).status).to.equal(200);
      const r = await app.api.get<ErrorBody>('/v1/jobs/count', { key, ...noWait });
      expect(r.status).to.equal(429);
      expect(header(r, 'RateLimit-Limit')).to.equal('60');
    });

    it('never admits more than the window to parallel clients, and the ledger holds exactly the admitted', async () => {
      const { key, accountId } = await app.account({ plan: 'free' });
      const results = await Promise.all(Array.from({ length: 45 }, () => app.api.get('/v1/jobs?limit=2', { key, ...noWait })));
      expect(results.filter((r) => r.status === 200)).to.have.length(30);
      expect(results.filter((r) => r.status === 429)).to.have.length(15);
      await settled();
      const rows = await ledger(accountId);
      expect(rows).to.have.length(30);
      expect(rows.reduce((n, r) => n + r.records_charged, 0)).to.equal(60);
      expect(await month(accountId)).to.include({ records: 60, requests: 30 });
    });
  });

  it('prices the path of a route in any case or with a trailing slash as the route itself, as Express routes it', async () => {
    const { key, accountId } = await app.account({ plan: 'paid-5k' });
    const id = (await app.api.get<Page>('/v1/jobs?limit=1', { key })).body.data[0]!.job_id;
    // Paths the contract does not spell so, though Express (and the known route) take them.
    expect((await app.api.get('/v1/jobs/?limit=2&q=engineer', { key, unchecked: true })).status).to.equal(200);
    expect((await app.api.get(`/V1/JOBS/${id}/`, { key, unchecked: true })).status).to.equal(200);
    await settled();
    const rows = await app.store.query<{ route: string; route_class: string }>(
      'SELECT route, route_class FROM ledger WHERE account_id = $1 ORDER BY seq',
      [accountId],
    );
    expect(rows.map((r) => `${r.route} ${r.route_class}`)).to.deep.equal([
      '/v1/jobs jobs_list',
      '/v1/jobs jobs_search',
      '/v1/jobs/{jobId} jobs_get',
    ]);
  });

  describe('monthly requests', () => {
    it('refuses with 429 rate_limited until the first of next month once the allowance is used, before any work', async () => {
      const { key, accountId } = await app.account({ plan: 'free' });
      expect((await app.api.get('/v1/jobs/count', { key })).status).to.equal(200);
      await app.alter(accountId, 'UPDATE usage_months SET requests_drawn = requests_granted WHERE account_id = $1');
      const r = await app.api.get<ErrorBody>('/v1/jobs?limit=5', { key });
      expect(r.status).to.equal(429);
      expect(r.body.error.message).to.match(/monthly API request allowance has been reached/);
      expect(num(r, 'Retry-After')).to.equal((Date.parse('2026-12-01T00:00:00Z') - NOW.getTime()) / 1000);
      expect(num(r, 'X-Data-Requests-Remaining')).to.equal(0);
      await settled();
      expect(await ledger(accountId)).to.have.length(1);
      app.setNow(new Date('2026-12-01T00:00:05Z'));
      const next = await app.api.get('/v1/jobs/count', { key });
      expect(next.status).to.equal(200);
      expect(num(next, 'X-Data-Requests-Used')).to.equal(1);
    });

    it('carries unused requests over for 12 months and draws the oldest first', async () => {
      const { key, accountId } = await app.account({ plan: 'free' });
      await app.store.query("UPDATE accounts SET created_at = '2025-06-10T00:00:00Z' WHERE account_id = $1", [accountId]);
      const r = await app.api.get('/v1/jobs/count', { key });
      // November 2025 to November 2026: 13 grants of 250 (June to October 2025 have expired).
      expect(num(r, 'X-Data-Requests-Limit')).to.equal(13 * 250);
      expect(num(r, 'X-Data-Requests-Remaining')).to.equal(13 * 250 - 1);
      await settled();
      const rows = await app.store.query<{ month: string; drawn: number }>(
        "SELECT to_char(month, 'YYYY-MM') AS month, requests_drawn::int AS drawn FROM usage_months WHERE account_id = $1 AND requests_drawn > 0",
        [accountId],
      );
      expect(rows).to.deep.equal([{ month: '2025-11', drawn: 1 }]);
    });
  });

  describe('monthly records', () => {
    it('charges each job of a 200, nothing for counts, errors, redirects and empty pages, and reports it in the headers', async () => {
      const { key, accountId } = await app.account({ plan: 'paid-5k' });
      const list = await app.api.get<Page>('/v1/jobs?limit=7', { key });
      expect(num(list, 'X-Data-Records-Charged')).to.equal(7);
      expect(num(list, 'X-Data-Records-Used')).to.equal(7);
      expect(num(list, 'X-Data-Records-Limit')).to.equal(5000);
      expect(num(list, 'X-Data-Records-Remaining')).to.equal(4993);
      expect(header(list, 'X-Data-Records-Reset')).to.equal('2026-12-01T00:00:00.000Z');
      const one = await app.api.get(`/v1/jobs/${list.body.data[0]!.job_id}`, { key });
      expect(num(one, 'X-Data-Records-Charged')).to.equal(1);
      for (const path of [
        '/v1/jobs/count',
        '/v1/jobs?limit=abc',
        '/v1/jobs/00000000-0000-4000-8000-000000000000',
        '/v1/jobs?company_id=00000000-0000-4000-8000-000000000000',
        '/v1/usage/requests',
      ]) {
        const r = await app.api.get(path, { key });
        expect(num(r, 'X-Data-Records-Charged'), path).to.equal(0);
      }
      await settled();
      expect((await month(accountId)).records).to.equal(8);
      const rows = await ledger(accountId);
      expect(rows.map((r) => [r.status, r.records_charged, r.settlement_status])).to.deep.equal([
        [200, 7, 'included'],
        [200, 1, 'included'],
        [200, 0, 'included'],
        [400, 0, 'not_charged'],
        [404, 0, 'not_charged'],
        [200, 0, 'included'],
        [200, 0, 'included'],
      ]);
    });

    it('refuses a page the allowance cannot take with 429 data_limit_exceeded and no data, giving the request back', async () => {
      const { key, accountId } = await app.account({ plan: 'free' });
      expect((await app.api.get('/v1/jobs?limit=10', { key })).status).to.equal(200);
      await app.alter(accountId, 'UPDATE usage_months SET records_used = 995 WHERE account_id = $1');
      const r = await app.api.get<ErrorBody>('/v1/jobs?limit=10', { key });
      expect(r.status).to.equal(429);
      expect(r.body.error.code).to.equal('data_limit_exceeded');
      expect(r.text).not.to.include('job_id');
      const ok = await app.api.get('/v1/jobs?limit=5', { key });
      expect(num(ok, 'X-Data-Records-Remaining')).to.equal(0);
      await settled();
      expect(await month(accountId)).to.include({ records: 1000, requests: 2 });
      expect((await ledger(accountId)).map((row) => [row.status, row.settlement_status])).to.deep.equal([
        [200, 'included'],
        [429, 'not_charged'],
        [200, 'included'],
      ]);
    });

    it('never charges parallel pages past the allowance: the month takes exactly what is left', async () => {
      const { key, accountId } = await app.account({ plan: 'free' });
      expect((await app.api.get('/v1/jobs/count', { key })).status).to.equal(200);
      await app.alter(accountId, 'UPDATE usage_months SET records_used = 988 WHERE account_id = $1');
      const results = await Promise.all(Array.from({ length: 10 }, () => app.api.get('/v1/jobs?limit=4', { key, ...noWait })));
      expect(results.filter((r) => r.status === 200)).to.have.length(3);
      expect(results.filter((r) => r.status === 429)).to.have.length(7);
      await settled();
      expect((await month(accountId)).records).to.equal(1000);
      const rows = await ledger(accountId);
      expect(rows.reduce((n, r) => n + r.records_charged, 0)).to.equal(12);
    });

    it('reports overage used exactly, as the limit is enforced and as analytics says: 7 records at $0.002 are $0.014, not $0.01', async () => {
      const { key, accountId } = await app.account({ plan: 'paid-5k' });
      expect((await app.api.put('/v1/account/overage', { enabled: true }, { key })).status).to.equal(200);
      await app.alter(accountId, 'UPDATE usage_months SET records_used = 4997 WHERE account_id = $1');
      expect(num(await app.api.get('/v1/jobs?limit=10', { key }), 'X-Data-Records-Charged')).to.equal(10);
      await settled();
      expect((await app.api.put<{ usedUsd: number }>('/v1/account/overage', { enabled: true }, { key })).body.usedUsd).to.equal(0.014);
      expect((await app.api.get<Analytics>('/v1/usage/analytics', { key })).body.totals.overage_usd).to.equal(0.014);
    });

    it('bills records past the allowance as overage up to the monthly limit, refusing a page that would cross it whole', async () => {
      const { key, accountId } = await app.account({ plan: 'paid-5k' });
      // $10 for 5,000 records: 2,000 micro-USD a record; a $0.05 limit is 25 records.
      expect((await app.api.put('/v1/account/overage', { enabled: true, monthlyLimitUsd: 0.05 }, { key })).status).to.equal(200);
      await app.alter(accountId, 'UPDATE usage_months SET records_used = 4990 WHERE account_id = $1');
      const first = await app.api.get('/v1/jobs?limit=30', { key });
      expect(first.status).to.equal(200);
      expect(num(first, 'X-Data-Records-Charged')).to.equal(30);
      const crossing = await app.api.get<ErrorBody>('/v1/jobs?limit=10', { key });
      expect(crossing.status).to.equal(429);
      expect(crossing.body.error.code).to.equal('data_limit_exceeded');
      expect((await app.api.get('/v1/jobs?limit=5', { key })).status).to.equal(200);
      expect((await app.api.get('/v1/jobs?limit=1', { key })).status).to.equal(429);
      await settled();
      expect(await month(accountId)).to.include({ records: 5025, overage: 25 * 2000 });
      const overage = await app.api.put<{ usedUsd: number }>('/v1/account/overage', { enabled: true }, { key });
      expect(overage.body.usedUsd).to.equal(0.05);
      const rows = await ledger(accountId);
      expect(rows.filter((r) => r.settlement_status === 'overage').map((r) => r.records_charged)).to.deep.equal([30, 5]);
    });
  });

  describe('the requests model (spec 8.4)', () => {
    it('prices paid units with the monthly volume discounts: 25 % off from 1,000,000, 50 % from 10,000,000', async () => {
      const price = async (before: number, units: number, micros: number) =>
        Number((await app.store.query<{ p: string }>('SELECT meter_units_price($1, $2, $3) AS p', [before, units, micros]))[0]!.p);
      expect(await price(0, 1000, 20)).to.equal(20_000); // $0.02 per 1,000 lists and counts
      expect(await price(0, 1000, 200)).to.equal(200_000); // $0.20 per 1,000 keyword searches
      expect(await price(999_990, 20, 20)).to.equal(10 * 20 + 10 * 15);
      expect(await price(9_999_990, 20, 200)).to.equal(10 * 150 + 10 * 100);
      expect(await price(20_000_000, 4, 20)).to.equal(4 * 10);
    });

    it('renews the free units of every key at 00:00 UTC', async () => {
      const { key, keyId } = await app.account({ plan: 'paid-5k', billing_model: 'requests' });
      expect((await app.api.get('/v1/jobs/count', { key })).status).to.equal(200);
      await settled();
      await app.store.query('UPDATE key_days SET free_units = 10000 WHERE key_id = $1', [keyId]);
      expect((await app.api.get('/v1/jobs/count', { key })).status).to.equal(429);
      app.setNow(new Date('2026-11-26T00:00:01Z'));
      const next = await app.api.get('/v1/jobs/count', { key });
      expect(next.status).to.equal(200);
      // Admission reports the day's free units before this request's own are counted (at settlement).
      expect(num(next, 'X-Data-Requests-Remaining')).to.equal(10_000);
    });

    it('gives each key free request units a day, never counts one job, then needs a prepaid balance or overage', async () => {
      const { key, accountId, keyId } = await app.account({ plan: 'paid-5k', billing_model: 'requests' });
      const list = await app.api.get<Page>('/v1/jobs?limit=150', { key });
      expect(list.status).to.equal(200);
      expect(header(list, 'X-Data-Records-Used')).to.equal(null);
      await app.api.get(`/v1/jobs/${list.body.data[0]!.job_id}`, { key });
      await settled();
      const [day] = await app.store.query<{ free: number }>('SELECT free_units::int AS free FROM key_days WHERE key_id = $1', [keyId]);
      expect(day!.free).to.equal(2); // 150 jobs are two requests of up to 100; one job never counts
      await app.store.query('UPDATE key_days SET free_units = 10000 WHERE key_id = $1', [keyId]);
      const refused = await app.api.get<ErrorBody>('/v1/jobs/count', { key });
      expect(refused.status).to.equal(429);
      expect(refused.body.error.message).to.match(/free requests of the day/);
      await app.store.query('UPDATE accounts SET prepaid_micros = 1000 WHERE account_id = $1', [accountId]);
      expect((await app.api.get('/v1/jobs/count', { key })).status).to.equal(200);
      expect((await app.api.get('/v1/jobs?q=experience&limit=5', { key })).status).to.equal(200);
      await settled();
      const [account] = await app.store.query<{ prepaid: number }>(
        'SELECT prepaid_micros::int AS prepaid FROM accounts WHERE account_id = $1',
        [accountId],
      );
      // A count is $0.02 per 1,000 (20 micro-USD), a keyword search $0.20 per 1,000 (200).
      expect(account!.prepaid).to.equal(1000 - 20 - 200);
    });
    it('prices a request at admission as it is settled: a balance that pays a list and not a keyword search refuses the search before any work', async () => {
      const { key, accountId, keyId } = await app.account({ plan: 'paid-5k', billing_model: 'requests' });
      const company = (await app.api.get<{ data: { company_id: string }[] }>('/v1/companies?limit=1', { key })).body.data[0]!.company_id;
      await settled();
      await app.store.query('UPDATE key_days SET free_units = 10000 WHERE key_id = $1', [keyId]);
      // 100 micro-USD pays a list (20) and not a keyword search (200).
      await app.store.query('UPDATE accounts SET prepaid_micros = 100 WHERE account_id = $1', [accountId]);
      const searches = [
        app.api.get<ErrorBody>('/v1/jobs?q=experience&limit=1', { key, ...noWait }),
        app.api.post<ErrorBody>('/v1/jobs/search', { q: 'experience', limit: 1 }, { key, ...noWait }),
        app.api.post<ErrorBody>('/v1/jobs/search/es_dsl', { query: { match: { title: 'engineer' } }, size: 1 }, { key, ...noWait }),
        app.api.get<ErrorBody>(`/v1/companies/${company}/jobs?q=experience&limit=1`, { key, ...noWait }),
      ];
      for (const search of await Promise.all(searches)) {
        expect(search.status, search.text).to.equal(429);
        expect(search.body.error.code).to.equal('rate_limited');
      }
      // The same routes without a keyword are lists, admitted and paid at the list price.
      expect((await app.api.post('/v1/jobs/search', { limit: 1 }, { key })).status).to.equal(200);
      expect((await app.api.get(`/v1/companies/${company}/jobs?limit=1`, { key })).status).to.equal(200);
      await settled();
      const [account] = await app.store.query<{ prepaid: number }>(
        'SELECT prepaid_micros::int AS prepaid FROM accounts WHERE account_id = $1',
        [accountId],
      );
      expect(account!.prepaid).to.equal(100 - 20 - 20);
      // Refused at admission, the searches left no ledger row; a company's jobs are priced and recorded as a list.
      expect((await ledger(accountId)).map((row) => `${row.route_class} ${row.status}`)).to.deep.equal([
        'companies 200',
        'jobs_list 200',
        'jobs_list 200',
      ]);
    });

    it('charges every answer before it is sent: what the balance cannot pay is refused, gives its request back, and one job is never refused', async () => {
      const { key, accountId, keyId } = await app.account({ plan: 'paid-5k', billing_model: 'requests' });
      const list = await app.api.get<Page>('/v1/jobs?limit=1', { key });
      await settled();
      await app.store.query('UPDATE key_days SET free_units = 10000 WHERE key_id = $1', [keyId]);
      // 5 micro-USD cannot pay one unit of a count (20): refused before any work.
      await app.store.query('UPDATE accounts SET prepaid_micros = 5 WHERE account_id = $1', [accountId]);
      const unpaid = await app.api.get<ErrorBody>('/v1/jobs/count', { key, ...noWait });
      expect(unpaid.status).to.equal(429);
      expect(unpaid.body.error.code).to.equal('rate_limited');
      const job = await app.api.get(`/v1/jobs/${list.body.data[0]!.job_id}`, { key });
      expect(job.status).to.equal(200);
      // 30 pays for one count: of two parallel counts, both admitted, one is paid and one refused unsent.
      await app.store.query('UPDATE accounts SET prepaid_micros = 30 WHERE account_id = $1', [accountId]);
      const counts = await Promise.all([0, 1].map(() => app.api.get<ErrorBody & { count: number }>('/v1/jobs/count', { key, ...noWait })));
      expect(counts.map((r) => r.status).sort()).to.deep.equal([200, 429]);
      const [paid, refused] = counts[0]!.status === 200 ? counts : [counts[1]!, counts[0]!];
      expect(paid!.body.count).to.be.a('number');
      expect(refused!.body.error.code).to.be.oneOf(['data_limit_exceeded', 'rate_limited']);
      expect(refused!.text).not.to.include('"count"');
      // The 10 left cannot pay for the usage page either.
      expect((await app.api.get('/v1/usage/requests', { key, ...noWait })).status).to.equal(429);
      await settled();
      const [account] = await app.store.query<{ prepaid: number }>(
        'SELECT prepaid_micros::int AS prepaid FROM accounts WHERE account_id = $1',
        [accountId],
      );
      expect(account!.prepaid).to.equal(10);
      const rows = await ledger(accountId);
      // A request refused at settlement gives back the request it counted this month.
      expect((await month(accountId)).requests).to.equal(rows.filter((r) => r.status !== 429).length);
      expect(rows.filter((r) => r.status === 200).map((r) => r.route_class)).to.deep.equal(['jobs_list', 'jobs_get', 'jobs_count']);
    });

    it('creates an export only when its units past the free ones can be paid, within the overage limit', async () => {
      const { key, accountId, keyId } = await app.account({ plan: 'paid-5k', billing_model: 'requests' });
      const count = await app.api.get<{ count: number }>('/v1/jobs/count', { key });
      await settled();
      await app.store.query('UPDATE key_days SET free_units = 10000 WHERE key_id = $1', [keyId]);
      const unpaid = await app.api.post<ErrorBody>('/v1/jobs/exports', {}, { key, ...noWait });
      expect(unpaid.status).to.equal(429);
      expect(unpaid.body.error.code).to.equal('rate_limited');
      // One unit per 100 jobs at 20 micro-USD; a $0.01 overage limit is 10,000 micro-USD. Room for one
      // unit is enough to be admitted, not to create an export of several.
      expect((await app.api.put('/v1/account/overage', { enabled: true, monthlyLimitUsd: 0.01 }, { key })).status).to.equal(200);
      const price = Math.ceil(count.body.count / 100) * 20;
      expect(price).to.be.greaterThan(20);
      await app.alter(accountId, "UPDATE usage_months SET overage_used_micros = $2 WHERE account_id = $1 AND month = '2026-11-01'", [
        accountId,
        10_000 - price + 20,
      ]);
      const refused = await app.api.post<ErrorBody>('/v1/jobs/exports', {}, { key, ...noWait });
      expect(refused.status).to.equal(429);
      expect(refused.body.error.code).to.equal('data_limit_exceeded');
      await app.alter(accountId, "UPDATE usage_months SET overage_used_micros = $2 WHERE account_id = $1 AND month = '2026-11-01'", [
        accountId,
        10_000 - price,
      ]);
      expect((await app.api.post('/v1/jobs/exports', {}, { key })).status).to.equal(202);
      await app.service.exportRunner.idle();
      await settled();
      expect((await month(accountId)).overage).to.equal(10_000);
    });
  });

  describe('requests whose client goes away', () => {
    /** Sends a request and goes away once it is held inside the server; then lets the server go on. */
    async function leaveDuring(held: Held, method: string, path: string, key: string, body?: unknown): Promise<void> {
      const leaving = new AbortController();
      const sent = fetch(`${app.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
        signal: leaving.signal,
      }).catch(() => null);
      await held.inside;
      leaving.abort();
      await sent;
      await new Promise((resolve) => setTimeout(resolve, 100)); // the server sees the connection close
      await held.release();
      await settled();
    }

    it("keeps an export's request pending when its client leaves during creation, and charges it when the export completes", async () => {
      const { key, accountId } = await app.account({ plan: 'paid-5k' });
      await leaveDuring(hold(app.service.ctx.exports, 'create'), 'POST', '/v1/jobs/exports', key, { max_records: 50 });
      await app.service.exportRunner.idle();
      await settled();
      const [exp] = await app.store.query<{ status: string; records: number }>(
        'SELECT status, record_count::int AS records FROM exports WHERE account_id = $1',
        [accountId],
      );
      expect(exp).to.deep.equal({ status: 'completed', records: 50 });
      expect((await ledger(accountId)).map((r) => [r.status, r.records_charged, r.settlement_status])).to.deep.equal([
        [202, 50, 'included'],
      ]);
      const [m] = await app.store.query<{ used: number; reserved: number }>(
        'SELECT records_used::int AS used, records_reserved::int AS reserved FROM usage_months WHERE account_id = $1',
        [accountId],
      );
      expect(m).to.deep.equal({ used: 50, reserved: 0 });
    });

    it('settles a request whose client left before any answer as 499, charging nothing', async () => {
      const { key, accountId } = await app.account({ plan: 'paid-5k' });
      await leaveDuring(hold(app.service.ctx.jobs, 'list'), 'GET', '/v1/jobs?limit=20', key);
      expect((await ledger(accountId)).map((r) => [r.status, r.records_charged, r.settlement_status])).to.deep.equal([
        [499, 0, 'not_charged'],
      ]);
      expect((await month(accountId)).records).to.equal(0);
      // The account goes on as before.
      expect(num(await app.api.get('/v1/jobs?limit=3', { key }), 'X-Data-Records-Used')).to.equal(3);
    });
  });

  describe('the usage routes', () => {
    it('agree with the headers: every call counts one monthly request, the overage PUT too (outside the window), a 429 gives its request back', async () => {
      const { key, accountId } = await app.account({ plan: 'paid-5k' });
      const before = await app.api.get('/v1/jobs/count', { key });
      const windowBefore = num(before, 'RateLimit-Remaining');
      for (let i = 0; i < 5; i++)
        expect((await app.api.put('/v1/account/overage', { enabled: i % 2 === 1 }, { key })).status).to.equal(200);
      const after = await app.api.get('/v1/jobs/count', { key });
      // Five PUTs and the count: six more monthly requests; the window saw only the count.
      expect(num(after, 'X-Data-Requests-Used') - num(before, 'X-Data-Requests-Used')).to.equal(6);
      expect(windowBefore - num(after, 'RateLimit-Remaining')).to.equal(1);
      await app.alter(accountId, 'UPDATE usage_months SET records_used = 4995 WHERE account_id = $1');
      expect((await app.api.get('/v1/jobs?limit=10', { key })).status).to.equal(429);
      const last = await app.api.get('/v1/jobs/count', { key });
      expect(num(last, 'X-Data-Requests-Used')).to.equal(num(after, 'X-Data-Requests-Used') + 1);
      await settled();
      const analytics = await app.api.get<Analytics>('/v1/usage/analytics', { key });
      // Analytics counts its own call, as its header does.
      expect(analytics.body.totals.requests).to.equal(num(analytics, 'X-Data-Requests-Used'));
      expect(analytics.body.totals.requests).to.equal(num(last, 'X-Data-Requests-Used') + 1);
      const listed = await app.api.get<{ data: UsageEvent[] }>('/v1/usage/requests?limit=100', { key });
      // The listing leaves its own call out; every row but the 429 used a request.
      const counted = listed.body.data.filter((e) => e.status !== 429 && e.status !== null);
      expect(counted.length + 1).to.equal(num(listed, 'X-Data-Requests-Used'));
      expect((await month(accountId)).requests).to.equal(num(listed, 'X-Data-Requests-Used'));
    });

    it('lists the admitted requests newest first with their settlement, and pages with a cursor that expires after an hour', async () => {
      const { key, accountId, keyId } = await app.account({ plan: 'paid-5k' });
      await app.api.get('/v1/jobs?limit=3', { key });
      await app.api.get('/v1/jobs?q=experience&limit=2', { key });
      await app.api.get('/v1/jobs/count', { key });
      await app.api.get('/v1/jobs?limit=abc', { key });
      await settled();
      const first = await app.api.get<{ data: UsageEvent[]; next_cursor: string }>('/v1/usage/requests?limit=2', { key });
      expect(first.status, first.text).to.equal(200);
      expect(first.body.data.map((e) => [e.route_class, e.status, e.records_charged, e.settlement_status])).to.deep.equal([
        ['jobs_list', 400, 0, 'not_charged'],
        ['jobs_count', 200, 0, 'included'],
      ]);
      expect(first.body.data[0]!.api_key_id).to.equal(keyId);
      await app.api.get('/v1/jobs/count', { key }); // after the first page: not in this listing
      const second = await app.api.get<{ data: UsageEvent[]; next_cursor: string | null }>(
        `/v1/usage/requests?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`,
        { key },
      );
      expect(second.body.data.map((e) => [e.route_class, e.records_charged])).to.deep.equal([
        ['jobs_search', 2],
        ['jobs_list', 3],
      ]);
      expect(second.body.next_cursor).to.equal(null);
      const searches = await app.api.get<{ data: UsageEvent[] }>('/v1/usage/requests?route_class=jobs_search', { key });
      expect(searches.body.data).to.have.length(1);
      const mismatch = await app.api.get<ErrorBody>(`/v1/usage/requests?limit=3&cursor=${encodeURIComponent(first.body.next_cursor)}`, {
        key,
      });
      expect(mismatch.status).to.equal(400);
      app.setNow(new Date(NOW.getTime() + 61 * 60_000));
      const expired = await app.api.get<ErrorBody>(`/v1/usage/requests?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`, {
        key,
      });
      expect(expired.status).to.equal(400);
      expect(expired.body.error.message).to.match(/expired/);
      const other = await app.account();
      expect(
        (
          await app.api.get<ErrorBody>(`/v1/usage/requests?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`, {
            key: other.key,
          })
        ).status,
      ).to.equal(400);
      void accountId;
    });

    it('answers analytics equal to the ledger row for row, before and after compaction, and loses nothing when compaction is stopped at any step', async () => {
      const { key, accountId } = await app.account({ plan: 'paid-5k' });
      const days = ['2026-11-23T08:00:00Z', '2026-11-24T09:00:00Z', '2026-11-25T10:00:30Z'];
      for (const at of days) {
        app.setNow(new Date(at));
        await app.api.get('/v1/jobs?limit=4', { key });
        await app.api.get('/v1/jobs?title=manager&limit=3', { key });
        await app.api.get('/v1/jobs/count', { key });
        await app.api.get('/v1/jobs?limit=0', { key });
      }
      await settled();
      // Per day and route class, leaving out the usage routes: reading the ledger adds rows of its own.
      const expected = async () => {
        const byDay = new Map<string, { requests: number; records: number; errors: number; refused: number }>();
        for (const e of await listAll(key)) {
          const k = `${e.occurred_at.slice(0, 10)} ${e.route_class}`;
          const t = byDay.get(k) ?? { requests: 0, records: 0, errors: 0, refused: 0 };
          t.requests++;
          t.records += e.records_charged;
          if ((e.status ?? 0) >= 400) t.errors++;
          if (e.status === 429) t.refused++;
          byDay.set(k, t);
        }
        return [...byDay]
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([k, t]) => ({ date: k.split(' ')[0], group: k.split(' ')[1], ...t, overage_usd: 0 }));
      };
      const analytics = async () => {
        const body = (await app.api.get<Analytics>('/v1/usage/analytics?start=2026-11-01&end=2026-11-30&group_by=route_class', { key }))
          .body;
        return { ...body, data: body.data.filter((r) => r.group !== 'usage') };
      };
      const before = await expected();
      expect((await analytics()).data).to.deep.equal(before);

      const ledgerRows = await app.store.query<{ n: number }>('SELECT count(*)::int AS n FROM ledger WHERE account_id = $1', [accountId]);
      for (const step of ['claimed', 'partial', 'written'] as const) {
        await app.api.get('/v1/jobs?limit=1', { key });
        await settled();
        const stop = (at: string) => {
          if (at === step) throw new Error(`stopped at ${at}`);
        };
        await app.service.ctx.ledger
          .compact({ crash: stop, graceMs: 0 })
          .catch((e: Error) => expect(e.message).to.equal(`stopped at ${step}`));
        expect((await analytics()).data).to.deep.equal(await expected());
      }
      await settled();
      await app.service.ctx.ledger.compact({ graceMs: 0 });
      const left = await app.store.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM ledger WHERE account_id = $1 AND settlement_status <> 'pending'",
        [accountId],
      );
      expect(left[0]!.n).to.equal(0);
      const files = await readdir(join(app.config.dataDir, 'ledger'), { recursive: true });
      expect(files.filter((f) => f.includes('.tmp-'))).to.deep.equal([]);
      expect(files.filter((f) => f.endsWith('.parquet')).length).to.be.greaterThan(0);
      expect(ledgerRows[0]!.n).to.be.greaterThan(0);
      const after = await analytics();
      expect(after.data).to.deep.equal(await expected());
      expect(after.data.filter((r) => r.group === 'jobs_search').map((r) => r.records)).to.deep.equal([3, 3, 3]);
      const plain = (await app.api.get<Analytics>('/v1/usage/analytics?start=2026-11-01&end=2026-11-30', { key })).body;
      expect(plain.totals.requests).to.equal(plain.data.reduce((n, r) => n + r.requests, 0));
      expect(plain.data.map((r) => r.date)).to.deep.equal(['2026-11-23', '2026-11-24', '2026-11-25']);
    });

    it('answers both usage routes the same after the segments of each closed day are merged into one', async () => {
      const { key } = await app.account({ plan: 'paid-5k' });
      // Two segments on each of two days that have closed (the ledger's clock is the real one).
      for (const at of ['2026-11-10T08:00:00Z', '2026-11-10T09:00:00Z', '2026-11-11T08:00:00Z', '2026-11-11T09:00:00Z']) {
        app.setNow(new Date(at));
        await app.api.get('/v1/jobs?limit=2', { key });
        await app.api.get('/v1/jobs/count', { key });
        await settled();
        await app.service.ctx.ledger.compact({ graceMs: 0 });
      }
      app.setNow(NOW);
      const usage = async () => ({
        events: await listAll(key),
        analytics: (
          await app.api.get<Analytics>('/v1/usage/analytics?start=2026-11-01&end=2026-11-30&group_by=route_class', { key })
        ).body.data.filter((r) => r.group !== 'usage'),
      });
      const before = await usage();
      expect(before.events).to.have.length(8);
      expect(await app.service.ctx.ledger.merge()).to.be.at.least(2);
      expect(await usage()).to.deep.equal(before);
    });

    it('compacts each UTC day whole whatever the time zone of the store session', async () => {
      const { key, accountId } = await app.account({ plan: 'paid-5k' });
      // At 10:00:30 UTC it is already 00:00:30 the next day in UTC+14.
      await app.store.query("SET TimeZone = 'Pacific/Kiritimati'");
      try {
        await app.api.get('/v1/jobs?limit=2', { key });
        await settled();
        await app.service.ctx.ledger.compact({ graceMs: 0 });
        const left = await app.store.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM ledger WHERE account_id = $1 AND settlement_status <> 'pending'",
          [accountId],
        );
        expect(left[0]!.n).to.equal(0);
      } finally {
        await app.store.query('RESET TimeZone');
      }
      const body = (await app.api.get<Analytics>('/v1/usage/analytics?start=2026-11-01&end=2026-11-30&group_by=route_class', { key })).body;
      expect(body.data.filter((r) => r.group !== 'usage').map((r) => [r.date, r.requests, r.records])).to.deep.equal([
        ['2026-11-25', 1, 2],
      ]);
    });

    it('counts the 429s of each day: those refused at admission, which the ledger does not list, and data_limit_exceeded', async () => {
      const { key } = await app.account({ plan: 'free' });
      app.setNow(new Date('2026-11-24T09:00:00Z'));
      for (let i = 0; i < 30; i++) expect((await app.api.get('/v1/jobs/count', { key, ...noWait })).status).to.equal(200);
      for (let i = 0; i < 2; i++) expect((await app.api.get('/v1/jobs/count', { key, ...noWait })).status).to.equal(429);
      app.setNow(NOW);
      // 1,000 records a month on the free plan: a page of 250 five times, the fifth refused whole.
      for (let i = 0; i < 4; i++) expect((await app.api.get('/v1/jobs?limit=250&fields=job_id,title', { key })).status).to.equal(200);
      const over = await app.api.get<ErrorBody>('/v1/jobs?limit=250&fields=job_id,title', { key });
      expect(over.body.error.code).to.equal('data_limit_exceeded');
      await settled();
      const body = (await app.api.get<Analytics>('/v1/usage/analytics?start=2026-11-24&end=2026-11-25&group_by=route_class', { key })).body;
      const rows = body.data
        .filter((r) => r.group !== 'usage')
        .map(({ date, group, requests, errors, refused }) => [date, group, requests, errors, refused]);
      expect(rows).to.deep.equal([
        ['2026-11-24', 'jobs_count', 30, 0, 2],
        ['2026-11-25', 'jobs_list', 4, 1, 1],
      ]);
      expect(body.totals.refused).to.equal(3);
      // Refused at admission: no ledger row, no request used.
      expect((await listAll(key)).filter((e) => e.status === 429)).to.have.length(1);
    });

    it('answers the analytics as CSV with Accept: text/csv, the same rows as the JSON, as a download', async () => {
      const { key } = await app.account({ plan: 'paid-5k' });
      for (const at of ['2026-11-23T08:00:00Z', '2026-11-25T10:00:30Z']) {
        app.setNow(new Date(at));
        await app.api.get('/v1/jobs?limit=4', { key });
        await app.api.get('/v1/jobs/nope', { key });
      }
      await settled();
      for (const group of ['', '&group_by=route_class']) {
        const path = `/v1/usage/analytics?start=2026-11-01&end=2026-11-30${group}`;
        const json = (await app.api.get<Analytics>(path, { key })).body;
        await settled();
        const csv = await app.api.get<string>(path, { key, headers: { accept: 'text/csv' } });
        expect(csv.status).to.equal(200);
        expect(csv.headers.get('content-type')).to.equal('text/csv; charset=utf-8');
        expect(csv.headers.get('vary')).to.match(/Accept/i);
        expect(csv.headers.get('content-disposition')).to.match(
          group
            ? /^attachment; filename="?usage-analytics-2026-11-01-to-2026-11-30-by-route_class\.csv"?$/
            : /^attachment; filename="?usage-analytics-2026-11-01-to-2026-11-30\.csv"?$/,
        );
        const [head, ...lines] = csv.body.trimEnd().split('\n');
        const columns = head!.split(',');
        expect(columns).to.deep.equal(['date', ...(group ? ['group'] : []), 'requests', 'records', 'errors', 'refused', 'overage_usd']);
        const rows = lines.map((line): Record<string, string | number> =>
          Object.fromEntries(line.split(',').map((v, i) => [columns[i]!, /^[\d.]+$/.test(v) ? Number(v) : v])),
        );
        // The JSON read was one more usage request of today: the CSV counts it.
        const expected = json.data.map((r) =>
          r.group === 'usage' || (!group && r.date === '2026-11-25') ? { ...r, requests: r.requests + 1 } : r,
        );
        expect(rows).to.deep.equal(expected);
      }
      const plain = await app.api.get('/v1/usage/analytics', { key });
      expect(plain.headers.get('content-type')).to.match(/^application\/json/);
    });

    it('refuses bad parameters with 400 naming them', async () => {
      const { key } = await app.account();
      for (const [path, message] of [
        ['/v1/usage/requests?start=yesterday', /start/],
        ['/v1/usage/requests?start=2026-11-02T00:00:00Z&end=2026-11-01T00:00:00Z', /end/],
        ['/v1/usage/requests?limit=101', /limit/],
        ['/v1/usage/requests?route_class=everything', /route_class/],
        ['/v1/usage/requests?cursor=abc', /cursor/],
        ['/v1/usage/analytics?start=2026-02-30', /start/],
        ['/v1/usage/analytics?start=2026-11-10&end=2026-11-01', /end/],
        ['/v1/usage/analytics?group_by=day', /group_by/],
      ] as const) {
        const r = await app.api.get<ErrorBody>(path, { key });
        expect(r.status, path).to.equal(400);
        expect(r.body.error.message, path).to.match(message);
      }
    });
  });

  /** Every usage event of the key's account, paging through GET /v1/usage/requests. */
  async function listAll(key: string): Promise<UsageEvent[]> {
    const events: UsageEvent[] = [];
    let cursor: string | null = null;
    do {
      const r: ApiResponse<{ data: UsageEvent[]; next_cursor: string | null }> = await app.api.get(
        `/v1/usage/requests?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        { key },
      );
      events.push(...r.body.data);
      cursor = r.body.next_cursor;
    } while (cursor);
    // The listing requests themselves are rows too; leave them out so both sides see the same rows.
    return events.filter((e) => e.route_class !== 'usage');
  }
});
