import { expect } from 'chai';
import { findAccount } from '../../src/metering/accounts.js';
import { startTestAppWithCatalog, type TestApp } from '../support/app.js';

// Leases of the request window on the embedded store (ADR 0013): a records-model request is admitted
// in memory from slots its server took in the store beforehand (every slot left of the window, at the
// account's first request in it), and taken in the store when it settles.

const NOW = new Date('2026-11-25T10:00:30Z');
const noWait = { noWait: true };

describe('leases of the request window (embedded store)', function () {
  this.timeout(240_000);
  let app: TestApp;

  before(async function () {
    // Leases are the embedded store's: a shared PostgreSQL admits each request in the store.
    if (process.env.TEST_STATE_STORE === 'postgres') this.skip();
    app = await startTestAppWithCatalog({ jobs: 120, seed: 5 });
  });
  beforeEach(() => app?.setNow(NOW));
  after(async () => {
    app?.setNow(undefined);
    await app?.close();
  });

  const num = (r: { headers: Headers }, name: string) => Number(r.headers.get(name));
  /** The account's window in the store: slots used, held by the lease among them. */
  const windowRow = async (accountId: string) => {
    const [row] = await app.store.query<{ used: number; held: number }>('SELECT used, held FROM rate_windows WHERE account_id = $1', [
      accountId,
    ]);
    return row;
  };
  const requestsOf = async (accountId: string) => {
    await app.service.ctx.meter.idle();
    const [row] = await app.store.query<{ used: number; rows: number }>(
      `SELECT (SELECT requests_used::int FROM usage_months WHERE account_id = $1 AND month = '2026-11-01') AS used,
              (SELECT count(*)::int FROM ledger WHERE account_id = $1 AND counted) AS rows`,
      [accountId],
    );
    return row!;
  };

  it("admits a request its server's clock dates before the month the account was created in, from that month's grant", async () => {
    const { key, accountId } = await app.account({ plan: 'free' });
    const created = (await findAccount(app.store, accountId))!.created_at;
    // A second before the creation month: a server whose clock is behind the one that made the account.
    const before = new Date(Date.UTC(created.getUTCFullYear(), created.getUTCMonth(), 1) - 1000);
    app.setNow(before);
    const answer = await app.api.get('/v1/jobs?limit=1', { key, ...noWait });
    expect(answer.status).to.equal(200);
    await app.service.ctx.meter.idle();
    const [month] = await app.store.query<{ month: string; used: number }>(
      "SELECT to_char(month, 'YYYY-MM-DD') AS month, requests_used::int AS used FROM usage_months WHERE account_id = $1",
      [accountId],
    );
    expect(month).to.deep.equal({ month: before.toISOString().slice(0, 8) + '01', used: 1 });
  });

  it('holds every slot left of the window in the store before admitting from it, and reports the window as used by requests', async () => {
    const { key, accountId } = await app.account({ plan: 'free' });
    const first = await app.api.get('/v1/jobs?limit=1', { key, ...noWait });
    expect(first.status).to.equal(200);
    expect(num(first, 'RateLimit-Remaining')).to.equal(29);
    // The 30 slots are taken in the store at once; each request taken there no longer counts as held.
    await app.service.ctx.meter.idle();
    expect(await windowRow(accountId)).to.deep.equal({ used: 30, held: 29 });
    for (let i = 0; i < 8; i++) expect((await app.api.get('/v1/jobs?limit=1', { key, ...noWait })).status).to.equal(200);
    expect(await requestsOf(accountId)).to.deep.equal({ used: 9, rows: 9 });
    expect(await windowRow(accountId)).to.deep.equal({ used: 30, held: 21 });
    // The 31st request of the minute is refused.
    const requests = await Promise.all(Array.from({ length: 22 }, () => app.api.get('/v1/jobs/count', { key, ...noWait })));
    expect(requests.filter((r) => r.status === 200)).to.have.length(21);
    expect(requests.filter((r) => r.status === 429)).to.have.length(1);
    expect(await requestsOf(accountId)).to.deep.equal({ used: 30, rows: 30 });
    expect(await windowRow(accountId)).to.deep.equal({ used: 30, held: 0 });
  });

  it('gives the unused slots back when its server stops: a restart within the minute admits exactly the rest of the window', async () => {
    const { key, accountId } = await app.account({ plan: 'free' });
    for (let i = 0; i < 5; i++) expect((await app.api.get('/v1/jobs/count', { key, ...noWait })).status).to.equal(200);
    await app.restart();
    expect(await windowRow(accountId)).to.deep.equal({ used: 5, held: 0 });
    const results = await Promise.all(Array.from({ length: 40 }, () => app.api.get('/v1/jobs/count', { key, ...noWait })));
    expect(results.filter((r) => r.status === 200)).to.have.length(25);
    expect(results.filter((r) => r.status === 429)).to.have.length(15);
    expect(await requestsOf(accountId)).to.deep.equal({ used: 30, rows: 30 });
    expect(await windowRow(accountId)).to.deep.equal({ used: 30, held: 0 });
  });

  it('begins a later window without the store for an account whose month it counts: the row counts what is taken of it, and a restart admits exactly the rest', async () => {
    const { key, keyId, accountId } = await app.account({ plan: 'free' });
    expect((await app.api.get('/v1/jobs/count', { key, ...noWait })).status).to.equal(200);
    await app.service.ctx.meter.idle();
    expect(await windowRow(accountId)).to.deep.equal({ used: 30, held: 29 });
    // The next minute: no grant; the row is brought to the window by the requests taken in it.
    app.setNow(new Date(NOW.getTime() + 60_000));
    const first = await app.api.get('/v1/jobs/count', { key, ...noWait });
    expect(num(first, 'RateLimit-Remaining')).to.equal(29);
    for (let i = 0; i < 4; i++) expect((await app.api.get('/v1/jobs/count', { key, ...noWait })).status).to.equal(200);
    expect(await requestsOf(accountId)).to.deep.equal({ used: 6, rows: 6 });
    expect(await windowRow(accountId)).to.deep.equal({ used: 5, held: 0 });
    // A look at where the account stands (MCP get_usage) counts the window from the lease.
    const caller = { keyId, account: (await findAccount(app.store, accountId))! };
    const usage = { method: 'MCP', route: 'mcp/get_usage', routeClass: 'usage', windowed: false, counted: false } as const;
    expect((await app.service.ctx.meter.peek(caller, usage)).standing.windowUsed).to.equal(5);
    await app.restart();
    expect(await windowRow(accountId)).to.deep.equal({ used: 5, held: 0 });
    const results = await Promise.all(Array.from({ length: 40 }, () => app.api.get('/v1/jobs/count', { key, ...noWait })));
    expect(results.filter((r) => r.status === 200)).to.have.length(25);
    expect(results.filter((r) => r.status === 429)).to.have.length(15);
    expect(await requestsOf(accountId)).to.deep.equal({ used: 31, rows: 31 });
    expect(await windowRow(accountId)).to.deep.equal({ used: 30, held: 0 });
  });

  it('admits exactly the monthly requests left to parallel clients, whether its count is fresh or the store changed under it', async () => {
    const { key, accountId } = await app.account({ plan: 'paid-5k' });
    expect((await app.api.get('/v1/jobs/count', { key })).status).to.equal(200);
    // The store changes under the lease: three requests left. The call that takes a request refuses the rest.
    await app.alter(accountId, 'UPDATE usage_months SET requests_drawn = requests_granted - 3 WHERE account_id = $1');
    const stale = await Promise.all(
      Array.from({ length: 10 }, () => app.api.get<{ error: { code: string } }>('/v1/jobs?limit=2', { key, ...noWait })),
    );
    expect(stale.filter((r) => r.status === 200)).to.have.length(3);
    expect(stale.filter((r) => r.status === 429).map((r) => r.body.error.code)).to.deep.equal(Array(7).fill('rate_limited'));
    expect((await requestsOf(accountId)).rows).to.equal(4);

    // The next window's lease reads three more requests left; ten parallel clients get exactly three.
    await app.alter(accountId, 'UPDATE usage_months SET requests_drawn = requests_granted - 3 WHERE account_id = $1');
    app.setNow(new Date(NOW.getTime() + 60_000));
    const fresh = await Promise.all(Array.from({ length: 10 }, () => app.api.get('/v1/jobs?limit=2', { key, ...noWait })));
    expect(fresh.filter((r) => r.status === 200)).to.have.length(3);
    expect(fresh.filter((r) => r.status === 429)).to.have.length(7);
    const refused = fresh.find((r) => r.status === 429)!;
    expect(num(refused, 'X-Data-Requests-Remaining')).to.equal(0);
    expect((await requestsOf(accountId)).rows).to.equal(7);
    const [refusals] = await app.store.query<{ refused: number }>(
      'SELECT sum(refused)::int AS refused FROM refusals WHERE account_id = $1',
      [accountId],
    );
    expect(refusals!.refused).to.equal(14);
  });

  it('charges parallel pages settled together in order: those the month can take, and refuses the rest whole', async () => {
    const { key, accountId } = await app.account({ plan: 'free' });
    expect((await app.api.get('/v1/jobs/count', { key })).status).to.equal(200);
    // Five records left of the month's 1,000: ten parallel pages of two, settled in calls of several.
    await app.alter(accountId, "UPDATE usage_months SET records_used = 995 WHERE account_id = $1 AND month = '2026-11-01'");
    const pages = await Promise.all(
      Array.from({ length: 10 }, () => app.api.get<{ data?: unknown[]; error?: { code: string } }>('/v1/jobs?limit=2', { key, ...noWait })),
    );
    expect(pages.filter((r) => r.status === 200).map((r) => r.body.data!.length)).to.deep.equal([2, 2]);
    expect(pages.filter((r) => r.status === 429).map((r) => r.body.error!.code)).to.deep.equal(Array(8).fill('data_limit_exceeded'));
    await app.service.ctx.meter.idle();
    const [month] = await app.store.query<{ records: number; requests: number }>(
      "SELECT records_used::int AS records, requests_used::int AS requests FROM usage_months WHERE account_id = $1 AND month = '2026-11-01'",
      [accountId],
    );
    // The refused pages gave their requests back: the count and the two pages were counted.
    expect(month).to.deep.equal({ records: 999, requests: 3 });
    const charged = await app.store.query<{ records: number }>(
      "SELECT records_charged::int AS records FROM ledger WHERE account_id = $1 AND route = '/v1/jobs' AND status = 200",
      [accountId],
    );
    expect(charged).to.deep.equal([{ records: 2 }, { records: 2 }]);
  });

  it('gives the slots back when the account leaves the records model: the window counts only what was admitted', async () => {
    const { key, accountId } = await app.account({ plan: 'paid-5k' });
    // Two requests of a lease of the whole window (60).
    for (let i = 0; i < 2; i++) expect((await app.api.get('/v1/jobs/count', { key, ...noWait })).status).to.equal(200);
    await app.service.ctx.meter.idle();
    expect(await windowRow(accountId)).to.deep.equal({ used: 60, held: 58 });
    await app.store.query("UPDATE accounts SET billing_model = 'requests' WHERE account_id = $1", [accountId]);
    const next = await app.api.get('/v1/jobs/count', { key, ...noWait });
    expect(next.status).to.equal(200);
    expect(num(next, 'RateLimit-Remaining')).to.equal(57);
    expect(await windowRow(accountId)).to.deep.equal({ used: 3, held: 0 });
  });
});
