import { expect } from 'chai';
import { connect, type Socket } from 'node:net';
import { startTestAppWithCatalog, type TestApp } from '../support/app.js';
import { hold, type Held } from '../support/hold.js';

interface LedgerRow {
  status: number | null;
  records_charged: number;
  settlement_status: string;
}

/** Blocks the event loop, as a stretch of synchronous work does: a close on the wire waits to be seen. */
function busy(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('answers that are not delivered (spec 8.2: only successful responses count)', function () {
  this.timeout(120_000);
  let app: TestApp;

  before(async () => {
    // About 1,000 change events of full jobs: a page of several megabytes.
    app = await startTestAppWithCatalog({ jobs: 1200, seed: 17 });
  });
  after(() => app?.close());

  // What the server settled in memory reaches the store within milliseconds: read once it has.
  const ledger = async (accountId: string) => {
    await app.service.ctx.meter.idle();
    return app.store.query<LedgerRow>(
      'SELECT status, records_charged::int AS records_charged, settlement_status FROM ledger WHERE account_id = $1 ORDER BY seq',
      [accountId],
    );
  };
  const recordsUsed = async (accountId: string) => {
    await app.service.ctx.meter.idle();
    const rows = await app.store.query<{ used: number }>(
      'SELECT coalesce(sum(records_used), 0)::int AS used FROM usage_months WHERE account_id = $1',
      [accountId],
    );
    return rows[0]!.used;
  };

  /** A raw HTTP/1.1 request on its own connection, the socket returned so the test can close it at will. */
  function send(path: string, key: string): Promise<Socket> {
    const { port } = new URL(app.url);
    return new Promise((resolve) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(`GET ${path} HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${key}\r\n\r\n`);
        resolve(socket);
      });
      socket.on('error', () => undefined);
    });
  }

  const changes = '/v1/jobs/changes?since=2000-01-01T00:00:00Z&limit=1000';

  /**
   * Pads the next change-feed page with 32 MB of JSON whitespace: more than the operating system's socket
   * buffers take (4 MB to send on this machine's defaults), so most of it still waits in the server when
   * the client stops reading.
   */
  function padNextPage(): void {
    const feed = app.service.ctx.feed;
    const original = feed.page.bind(feed);
    feed.page = async (...args: Parameters<typeof feed.page>) => {
      delete (feed as Partial<typeof feed>).page;
      const page = await original(...args);
      return { ...page, json: Buffer.concat([page.json, Buffer.alloc(32 * 1024 * 1024, ' ')]) };
    };
  }

  /**
   * Sends `path` and closes the connection once the request is held at `held`; the server then goes on at
   * once, busy with synchronous work for a while, so the close is not seen until the loop polls again.
   */
  async function leaveWhileHeld(held: Held, path: string, key: string): Promise<void> {
    const socket = await send(path, key);
    await held.inside;
    socket.destroy();
    busy(100);
    void held.release();
    await sleep(300);
    await app.service.ctx.meter.idle();
  }

  async function expectNothingCharged(accountId: string): Promise<void> {
    expect(await ledger(accountId)).to.deep.equal([{ status: 499, records_charged: 0, settlement_status: 'not_charged' }]);
    expect(await recordsUsed(accountId)).to.equal(0);
  }

  it('settles as 499 and charges nothing when the client left during the query, seen only after synchronous work', async () => {
    const { key, accountId } = await app.account({ plan: 'paid-25k' });
    await leaveWhileHeld(hold(app.service.ctx.feed, 'page'), changes, key);
    await expectNothingCharged(accountId);
  });

  it('gives the charge back when the client left while the records were charged, before the headers', async () => {
    const { key, accountId } = await app.account({ plan: 'paid-25k' });
    await leaveWhileHeld(hold(app.service.ctx.meter, 'settle'), '/v1/jobs?limit=20', key);
    await expectNothingCharged(accountId);
  });

  it('gives the charge back when the connection is cut mid-body, before the last byte reached the network', async () => {
    const { key, accountId } = await app.account({ plan: 'paid-25k' });
    padNextPage();
    const socket = await send(changes, key);
    // Read the start of the answer, then stop reading: the megabytes behind it wait in the server.
    const first = await new Promise<Buffer>((resolve) => socket.once('data', resolve));
    expect(first.toString('latin1')).to.match(/^HTTP\/1\.1 200 /);
    socket.pause();
    await sleep(300);
    socket.resetAndDestroy();
    await sleep(300);
    await app.service.ctx.meter.idle();
    await expectNothingCharged(accountId);
  });

  it('charges an answer read to its end, and the account goes on as before after each undelivered one', async () => {
    const { key, accountId } = await app.account({ plan: 'paid-25k' });
    const page = await app.api.get<{ data: unknown[] }>('/v1/jobs?limit=7', { key });
    expect(page.status).to.equal(200);
    await app.service.ctx.meter.idle();
    expect(await ledger(accountId)).to.deep.equal([{ status: 200, records_charged: 7, settlement_status: 'included' }]);
    expect(await recordsUsed(accountId)).to.equal(7);
    expect(page.headers.get('x-data-records-used')).to.equal('7');
  });
});
