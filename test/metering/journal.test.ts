import { expect } from 'chai';
import { appendFileSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import type { StateStore } from '../../src/db/state-store.js';
import { MeterJournal, replayJournal } from '../../src/metering/journal.js';
import { returnHeld } from '../../src/metering/leases.js';
import type { Caller } from '../../src/metering/keys.js';
import { Meter, type Ticket } from '../../src/metering/meter.js';
import { freshStore, releaseStore, startTestAppWithCatalog, tempDir, type TestApp } from '../support/app.js';
import { admitOne, callerOn } from '../support/meter.js';

// The meter journal (ADR 0013): on the embedded store a request whose records fit in the month as the
// server counts them is settled in memory, its line journaled before its answer, and settled in the
// store by a later batch; a start settles what a killed server journaled and the store does not have.

const logger = pino({ level: 'silent' });
const AT = new Date('2026-11-25T10:00:30Z');
const FIRST_FILE = '000000000001.jsonl';

interface LedgerRow {
  status: number;
  records_charged: number;
  settlement_status: string;
}

const rowOf = async (store: StateStore, requestId: string) =>
  (
    await store.query<LedgerRow>(
      'SELECT status, records_charged::int AS records_charged, settlement_status FROM ledger WHERE request_id = $1',
      [requestId],
    )
  )[0];

const month = async (store: StateStore, accountId: string) =>
  (
    await store.query<{ records: number; requests: number }>(
      "SELECT records_used::int AS records, requests_used::int AS requests FROM usage_months WHERE account_id = $1 AND month = '2026-11-01'",
      [accountId],
    )
  )[0];

const stored = async (store: StateStore) =>
  (
    await store.query<{ seq: number; position: number }>(
      "SELECT seq::int AS seq, position::int AS position FROM meter_journal WHERE journal = 'meter'",
    )
  )[0];

describe('the meter journal (embedded store)', function () {
  this.timeout(120_000);
  let store: StateStore;
  let caller: Caller;
  let dir: string;

  before(function () {
    // The journal is the embedded store's: on a shared PostgreSQL a request waits for its settlement.
    if (process.env.TEST_STATE_STORE === 'postgres') this.skip();
  });
  beforeEach(async () => {
    store = await freshStore();
    caller = await callerOn(store);
    dir = await tempDir('journal');
  });
  afterEach(() => releaseStore(store));

  /** The caller's window in the store: slots used, held by a lease among them. */
  const windowOf = async () =>
    (
      await store.query<{ used: number; held: number }>('SELECT used, held FROM rate_windows WHERE account_id = $1', [
        caller.account.account_id,
      ])
    )[0];

  /** A server started on the store after a kill (its journal's next file 2) admits exactly `n` requests of the window, then refuses one. */
  async function admitsExactly(clock: () => Date, n: number): Promise<void> {
    const next = new Meter(store, clock, logger, null, { leases: true, journal: new MeterJournal(dir, 2) });
    for (let i = 0; i < n; i++) await next.settle(await admitOne(next, caller, `req_next_${i}`), { status: 200, records: 1 });
    const { refusal } = await next.admit(caller, {
      requestId: 'req_over',
      method: 'GET',
      route: '/v1/jobs',
      routeClass: 'jobs_list',
      windowed: true,
    });
    expect(refusal).to.equal('window');
    await next.stop();
  }

  it('journals a request settled in memory before its answer, and the next batch settles it in the store with how far the journal is settled', async () => {
    const journal = new MeterJournal(dir, 1);
    const meter = new Meter(store, () => AT, logger, null, { leases: true, journal });
    const ticket = await admitOne(meter, caller, 'req_mem_1');
    expect(await meter.settle(ticket, { status: 200, records: 5 })).to.equal(true);
    expect(ticket.standing.recordsUsed).to.equal(5);
    // Answered: the line is in the journal, the ledger row not in the store yet.
    const file = join(dir, FIRST_FILE);
    expect(JSON.parse(readFileSync(file, 'utf8'))).to.include({ p_request: 'req_mem_1', p_records: 5, p_force: true });
    expect(await rowOf(store, 'req_mem_1')).to.equal(undefined);
    await meter.idle();
    expect(await rowOf(store, 'req_mem_1')).to.deep.equal({ status: 200, records_charged: 5, settlement_status: 'included' });
    expect(await month(store, caller.account.account_id)).to.deep.equal({ records: 5, requests: 1 });
    expect(await stored(store)).to.deep.equal({ seq: 1, position: statSync(file).size });
    await meter.stop();
  });

  it('takes a usage call after the requests settled in memory before it, so the ledger lists them in that order', async () => {
    const meter = new Meter(store, () => AT, logger, null, { leases: true, journal: new MeterJournal(dir, 1) });
    expect(await meter.settle(await admitOne(meter, caller, 'req_before'), { status: 200, records: 2 })).to.equal(true);
    // Settled in memory: its row waits in the journal for company while the usage call is admitted.
    const { ticket, refusal } = await meter.admit(caller, {
      requestId: 'req_usage',
      method: 'GET',
      route: '/v1/usage/requests',
      routeClass: 'usage',
      windowed: true,
    });
    expect(refusal).to.equal(null);
    const order = await store.query<{ request_id: string }>('SELECT request_id FROM ledger WHERE account_id = $1 ORDER BY seq', [
      caller.account.account_id,
    ]);
    expect(order.map((row) => row.request_id)).to.deep.equal(['req_before', 'req_usage']);
    await meter.settle(ticket, { status: 200, records: 0 });
    await meter.stop();
  });

  it("settles at start what a killed server journaled past the store's position, once, and not a line cut short", async () => {
    const journal = new MeterJournal(dir, 1);
    const meter = new Meter(store, () => AT, logger, null, { leases: true, journal });
    const ticket = await admitOne(meter, caller, 'req_1');
    await meter.settle(ticket, { status: 200, records: 2 });
    await meter.idle();
    // Two more answered whose batch never ran (the server was killed), and a line being written at the
    // kill; before them, the first again, as if its batch had committed and the answer been lost.
    const file = join(dir, FIRST_FILE);
    const line = JSON.parse(readFileSync(file, 'utf8').split('\n')[0]!) as Record<string, unknown>;
    await store.query("UPDATE meter_journal SET position = 0 WHERE journal = 'meter'");
    journal.append({ ...line, p_request: 'req_2' });
    journal.append({ ...line, p_request: 'req_3', p_records: 3 });
    journal.close();
    appendFileSync(file, '{"p_request":"req_4","p_acc');

    expect(await replayJournal(store, dir)).to.deep.equal({ lines: 3, refused: 0, nextSeq: 2 });
    expect(await rowOf(store, 'req_1')).to.deep.equal({ status: 200, records_charged: 2, settlement_status: 'included' });
    expect(await rowOf(store, 'req_2')).to.deep.equal({ status: 200, records_charged: 2, settlement_status: 'included' });
    expect(await rowOf(store, 'req_3')).to.deep.equal({ status: 200, records_charged: 3, settlement_status: 'included' });
    expect(await rowOf(store, 'req_4')).to.equal(undefined);
    expect(await month(store, caller.account.account_id)).to.deep.equal({ records: 7, requests: 3 });
    expect(readdirSync(dir)).to.deep.equal([]);
    // A second start finds nothing more to settle.
    expect(await replayJournal(store, dir)).to.deep.equal({ lines: 0, refused: 0, nextSeq: 2 });
    expect(await month(store, caller.account.account_id)).to.deep.equal({ records: 7, requests: 3 });
  });

  it('gives back at start the window slots a killed server held and did not use, once the requests it journaled count as used', async () => {
    const accountId = caller.account.account_id;
    const journal = new MeterJournal(dir, 1);
    const meter = new Meter(store, () => AT, logger, null, { leases: true, journal });
    // Three answered and settled in the store; the window's 60 slots taken at the first, 57 of them held.
    for (const id of ['req_1', 'req_2', 'req_3']) await meter.settle(await admitOne(meter, caller, id), { status: 200, records: 1 });
    await meter.idle();
    expect(await windowOf()).to.deep.equal({ used: 60, held: 57 });
    // One admitted and not answered when the kill came; two more answered whose batch never ran: in the journal only.
    await admitOne(meter, caller, 'req_cut');
    const line = JSON.parse(readFileSync(join(dir, FIRST_FILE), 'utf8').split('\n')[0]!) as Record<string, unknown>;
    for (const id of ['req_4', 'req_5']) {
      await admitOne(meter, caller, id);
      journal.append({ ...line, p_request: id });
    }
    journal.close();

    // The next start: the journal settled first, then what the killed server held unused given back.
    expect(await replayJournal(store, dir)).to.deep.equal({ lines: 2, refused: 0, nextSeq: 2 });
    expect(await windowOf()).to.deep.equal({ used: 60, held: 55 });
    expect(await returnHeld(store)).to.equal(55);
    expect(await windowOf()).to.deep.equal({ used: 5, held: 0 });
    expect(await returnHeld(store)).to.equal(0);
    // Its server admits exactly the rest of the window.
    await admitsExactly(() => AT, 55);
    expect(await windowOf()).to.deep.equal({ used: 60, held: 0 });
    expect(await month(store, accountId)).to.deep.equal({ records: 60, requests: 60 });
  });

  it('counts at start the requests a killed server answered in a window it began in memory, and admits exactly the rest', async () => {
    let now = AT;
    const journal = new MeterJournal(dir, 1);
    const meter = new Meter(store, () => now, logger, null, { leases: true, journal });
    await meter.settle(await admitOne(meter, caller, 'req_1'), { status: 200, records: 1 });
    // The next minute is begun in memory; two requests answered and settled, the row brought to it.
    now = new Date(AT.getTime() + 60_000);
    for (const id of ['req_2', 'req_3']) await meter.settle(await admitOne(meter, caller, id), { status: 200, records: 1 });
    await meter.idle();
    expect(await windowOf()).to.deep.equal({ used: 2, held: 0 });
    // One more answered and only journaled, one admitted and not answered, when the kill came.
    const line = JSON.parse(readFileSync(join(dir, FIRST_FILE), 'utf8').split('\n')[1]!) as Record<string, unknown>;
    await admitOne(meter, caller, 'req_4');
    journal.append({ ...line, p_request: 'req_4' });
    await admitOne(meter, caller, 'req_cut');
    journal.close();

    expect(await replayJournal(store, dir)).to.deep.equal({ lines: 1, refused: 0, nextSeq: 2 });
    expect(await returnHeld(store)).to.equal(0);
    expect(await windowOf()).to.deep.equal({ used: 3, held: 0 });
    await admitsExactly(() => now, 57);
    expect(await windowOf()).to.deep.equal({ used: 60, held: 0 });
  });

  it('moves to the next file once one is large and settled to its end; a start reads on from the file after the one the store names', async () => {
    const journal = new MeterJournal(dir, 1, 1);
    const meter = new Meter(store, () => AT, logger, null, { leases: true, journal });
    const ticket = await admitOne(meter, caller, 'req_1');
    await meter.settle(ticket, { status: 200, records: 1 });
    const size = statSync(join(dir, FIRST_FILE)).size;
    await meter.idle();
    expect(await stored(store)).to.deep.equal({ seq: 1, position: size });
    expect(readdirSync(dir)).to.deep.equal(['000000000002.jsonl']);
    // A request answered and journaled in the new file, its batch never run: the server was killed.
    expect(statSync(join(dir, '000000000002.jsonl')).size).to.equal(0);
    const second = await admitOne(meter, caller, 'req_2');
    journal.append({ ...journaledLine(second), p_records: 1 });
    journal.close();

    expect(await replayJournal(store, dir)).to.deep.equal({ lines: 1, refused: 0, nextSeq: 3 });
    expect(await rowOf(store, 'req_2')).to.deep.equal({ status: 200, records_charged: 1, settlement_status: 'included' });
    expect(await month(store, caller.account.account_id)).to.deep.equal({ records: 2, requests: 2 });
  });
});

describe('requests settled in memory beside an export (embedded store)', function () {
  this.timeout(240_000);
  let app: TestApp;

  before(async function () {
    if (process.env.TEST_STATE_STORE === 'postgres') this.skip();
    app = await startTestAppWithCatalog({ jobs: 120, seed: 5 });
    app.setNow(AT);
  });
  after(async () => {
    app?.setNow(undefined);
    await app?.close();
  });

  it("charges no page in memory past an export's reservation: a page the month can no longer take is refused whole", async () => {
    const { key, accountId } = await app.account({ plan: 'free' });
    const matching = (await app.api.get<{ count: number }>('/v1/jobs/count', { key })).body.count;
    // Pages up to two records short of what the export will set aside: 1,000 - matching - 2.
    const target = 1000 - matching - 2;
    let used = 0;
    let requests = 1;
    while (used < target) {
      const limit = Math.min(100, matching, target - used);
      expect((await app.api.get(`/v1/jobs?limit=${limit}`, { key })).status).to.equal(200);
      used += limit;
      requests++;
    }
    // The export and the next page are admitted from slots the lease holds already: no grant reads the month between them.
    const held = async () =>
      (await app.store.query<{ used: number }>('SELECT used FROM rate_windows WHERE account_id = $1', [accountId]))[0]!.used - requests;
    while ((await held()) < 2) {
      expect((await app.api.get('/v1/jobs/count', { key })).status).to.equal(200);
      requests++;
    }
    // The export sets the matching records aside; the server had counted matching + 2 left.
    expect((await app.api.post('/v1/jobs/exports', { format: 'jsonl', max_records: 100 }, { key })).status).to.equal(202);
    const page = await app.api.get<{ error: { code: string } }>('/v1/jobs?limit=5', { key });
    expect(page.status).to.equal(429);
    expect(page.body.error.code).to.equal('data_limit_exceeded');
    expect((await app.api.get('/v1/jobs?limit=2', { key })).status).to.equal(200);
    await app.service.ctx.meter.idle();
    // The count, the pages, the export and the last page; the refused page gave its request back.
    expect(await month(app.store, accountId)).to.deep.equal({ records: target + 2, requests: requests + 2 });
  });
});

/** The journal line a server writes for a request of `ticket` answered 200. */
function journaledLine(ticket: Ticket): Record<string, unknown> {
  const { account } = ticket.caller;
  return {
    p_request: ticket.info.requestId,
    p_account: account.account_id,
    p_key: ticket.caller.keyId,
    p_at: ticket.at,
    p_method: ticket.info.method,
    p_route: ticket.info.route,
    p_class: ticket.info.routeClass,
    p_node: null,
    p_month: '2026-11-01',
    p_status: 200,
    p_records: 0,
    p_allowance: 5000,
    p_force: true,
    p_void: false,
    p_overage_enabled: account.overage_enabled,
    p_price: account.overage_price_micros,
    p_limit_cents: account.overage_limit_cents,
  };
}
