import { expect } from 'chai';
import pino from 'pino';
import { migrate } from '../../src/db/migrate.js';
import { PgStore } from '../../src/db/pg-store.js';
import type { StateStore } from '../../src/db/state-store.js';
import { Meter } from '../../src/metering/meter.js';
import { Nodes } from '../../src/metering/nodes.js';
import { freshStore, startTestApp } from '../support/app.js';
import { admitOne, callerOn } from '../support/meter.js';
import { testPostgres } from '../support/postgres.js';

const logger = pino({ level: 'silent' });
const AT = new Date('2026-11-25T10:00:00Z');

interface Row {
  status: number | null;
  settlement_status: string;
  counted: boolean;
}

async function requestsUsed(store: StateStore, accountId: string): Promise<{ used: number; drawn: number }> {
  const [row] = await store.query<{ used: number; drawn: number }>(
    'SELECT coalesce(sum(requests_used), 0)::int AS used, coalesce(sum(requests_drawn), 0)::int AS drawn FROM usage_months WHERE account_id = $1',
    [accountId],
  );
  return row!;
}

const rowOf = async (store: StateStore, requestId: string) =>
  (await store.query<Row>('SELECT status, settlement_status, counted FROM ledger WHERE request_id = $1', [requestId]))[0];

describe('requests a stopped server left unanswered', function () {
  this.timeout(120_000);

  it('are settled not charged, their monthly request given back, by the next server on the embedded store', async function () {
    // The embedded store is one process's alone; on a shared store the lease decides (next test).
    if (process.env.TEST_STATE_STORE === 'postgres') this.skip();
    const app = await startTestApp();
    const { key, accountId } = await app.account({ plan: 'paid-5k' });
    // A request admitted and still being worked on when its server stops (the old service is left
    // running, unreachable, as a killed process would be: nothing more of it reaches the store).
    const ctx = app.service.ctx;
    const original = ctx.ledger.events.bind(ctx.ledger);
    let entered!: () => void;
    let finish!: (events: []) => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    ctx.ledger.events = () => {
      entered();
      return new Promise((resolve) => (finish = resolve));
    };
    void fetch(`${app.url}/v1/usage/requests`, { headers: { authorization: `Bearer ${key}` } }).catch(() => undefined);
    await inside;
    const [pending] = await app.store.query<{ request_id: string }>(
      "SELECT request_id FROM ledger WHERE account_id = $1 AND settlement_status = 'pending'",
      [accountId],
    );
    expect(pending).to.not.equal(undefined);
    expect(await requestsUsed(app.store, accountId)).to.deep.equal({ used: 1, drawn: 1 });

    const stopped = app.service;
    await app.restart(Promise.resolve());
    expect(await rowOf(app.store, pending!.request_id)).to.deep.equal({ status: null, settlement_status: 'not_charged', counted: false });
    expect(await requestsUsed(app.store, accountId)).to.deep.equal({ used: 0, drawn: 0 });
    const usage = await app.api.get<{ data: { request_id: string; status: number | null; settlement_status: string }[] }>(
      '/v1/usage/requests',
      { key },
    );
    expect(usage.body.data.find((e) => e.request_id === pending!.request_id)).to.include({
      status: null,
      settlement_status: 'not_charged',
    });

    ctx.ledger.events = original;
    finish([]);
    await stopped.close().catch(() => undefined);
    await app.close();
  });

  it('are settled by another server sharing PostgreSQL once the stopped one has missed its lease, never an export awaiting completion', async () => {
    const url = await (await testPostgres()).database(`nodes_${process.pid}`);
    const store = await PgStore.open(url);
    await migrate(store);
    const caller = await callerOn(store);
    let now = AT.getTime();
    const clock = () => new Date(now);

    const a = new Nodes(store, clock, logger, { leaseMs: 0, alone: false });
    await a.start();
    const meterA = new Meter(store, clock, logger, a.id);
    await admitOne(meterA, caller, 'req_left_1');
    await admitOne(meterA, caller, 'req_left_2');
    await admitOne(meterA, caller, 'req_export');
    await store.query(
      "INSERT INTO exports (export_id, account_id, status, format, request, snapshot_watermark, max_records, reserved_records, reserved_month, created_at, request_id) VALUES ('exp_1', $1, 'queued', 'jsonl', '{}', 'w', 10, 0, '2026-11-01', $2, 'req_export')",
      [caller.account.account_id, AT],
    );

    const b = new Nodes(store, clock, logger, { leaseMs: 30_000, alone: false });
    await b.start();
    // A's lease has not run out: it is working on them.
    expect(await b.sweep()).to.equal(0);
    expect((await rowOf(store, 'req_left_1'))!.settlement_status).to.equal('pending');

    now += 31_000;
    expect(await b.sweep()).to.equal(2);
    for (const id of ['req_left_1', 'req_left_2'])
      expect(await rowOf(store, id)).to.deep.equal({ status: null, settlement_status: 'not_charged', counted: false });
    expect(await rowOf(store, 'req_export')).to.deep.equal({ status: null, settlement_status: 'pending', counted: true });
    expect(await requestsUsed(store, caller.account.account_id)).to.deep.equal({ used: 1, drawn: 1 });
    expect(await store.query('SELECT node_id FROM nodes ORDER BY node_id')).to.deep.equal([{ node_id: b.id }]);
    await b.stop();
    await store.close();
  });

  it('never touch a request its live server settles, and a settled one stays as it was', async () => {
    const store = await freshStore();
    const caller = await callerOn(store);
    const clock = () => AT;
    const self = new Nodes(store, clock, logger, { leaseMs: 0, alone: true });
    await self.start();
    const meter = new Meter(store, clock, logger, self.id);
    const ticket = await admitOne(meter, caller, 'req_mine');
    await admitOne(meter, caller, 'req_done');
    expect(await meter.settle(ticket, { status: 200, records: 3 })).to.equal(true);
    expect(await self.sweep()).to.equal(0);
    expect(await rowOf(store, 'req_mine')).to.deep.equal({ status: 200, settlement_status: 'included', counted: true });
    expect(await rowOf(store, 'req_done')).to.deep.equal({ status: null, settlement_status: 'pending', counted: true });
    await store.close();
  });
});
