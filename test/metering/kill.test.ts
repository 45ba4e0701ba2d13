import { expect } from 'chai';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { generateCorpus } from '../../src/catalog/generator/corpus.js';
import { publish } from '../../src/catalog/publish/publish.js';
import { loadConfig } from '../../src/config.js';
import { openState } from '../../src/db/open-state.js';
import type { StateStore } from '../../src/db/state-store.js';
import { createAccount } from '../../src/metering/accounts.js';
import { issueKey } from '../../src/metering/keys.js';
import { seededDataDir, tempDir } from '../support/app.js';
import { startServer, type RunningServer } from '../support/cli.js';

/** A small seeded generator (mulberry32): the same trials on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

interface Received {
  requestId: string;
  status: number;
  records: number;
}

const TRIALS = 20;
const CLIENTS = 8;
const ACCOUNTS = 200;
/** The accounts every other trial sends its requests to. */
const HOT = 3;

describe('metering under kill -9 (seeded, 20 trials)', function () {
  this.timeout(300_000);
  let root: string;
  let dataDir: string;
  let snapshotsDir: string;
  const keys: string[] = [];

  before(async () => {
    root = await tempDir('kill');
    dataDir = await seededDataDir(join(root, 'data'));
    snapshotsDir = join(root, 'snapshots');
    await generateCorpus({ jobs: 300, seed: 9, days: 1, start: '2026-11-18' }, join(root, 'corpus'), { workers: 0 });
    await publish({ input: join(root, 'corpus', 'day-001'), snapshotsDir, dataDir, quiet: true, memoryLimit: '1GB' });
    await withStore(async (store) => {
      for (let i = 0; i < ACCOUNTS; i++) {
        const account = await createAccount(store, { plan: 'paid-25k' });
        keys.push((await issueKey(store, account.account_id)).key);
      }
    });
  });
  after(() => rm(root, { recursive: true, force: true }));

  async function withStore<T>(work: (store: StateStore) => Promise<T>): Promise<T> {
    const state = await openState({ ...loadConfig({}, {}), dataDir, snapshotsDir }, { role: 'cli' });
    try {
      return await work(state.store);
    } finally {
      await state.close();
    }
  }

  /** Requests sent so far: each burst goes on with the next keys, so that one minute's windows are shared by several servers. */
  let n = 0;
  /**
   * Clients send pages of 1-20 jobs until the server dies under them; what each got back is kept. With
   * `hot`, every request uses one of the first HOT keys: their windows fill up across servers.
   */
  async function burst(url: string, next: () => number, received: Received[], each = Infinity, hot = false): Promise<void> {
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        for (let sent = 0; sent < each; sent++) {
          const key = keys[n++ % (hot ? HOT : keys.length)]!;
          const limit = 1 + Math.floor(next() * 20);
          try {
            const res = await fetch(`${url}/v1/jobs?limit=${limit}`, { headers: { authorization: `Bearer ${key}` } });
            const body = (await res.json()) as { data?: unknown[] };
            received.push({ requestId: res.headers.get('x-request-id')!, status: res.status, records: body.data?.length ?? 0 });
          } catch {
            return; // the server is gone
          }
        }
      }),
    );
  }

  it('leaves nothing pending after a restart, loses no charged answer, counts none twice, keeps every counter equal to the ledger and no window above its limit', async () => {
    const next = random(20261123);
    const received: Received[] = [];
    const servers: RunningServer[] = [];
    const serve = async () => {
      const server = await startServer(['--data-dir', dataDir, '--snapshots-dir', snapshotsDir, '--ledger-compact-ms', '0'], {
        JPS_LOG_LEVEL: 'warn',
      });
      servers.push(server);
      return server;
    };
    for (let trial = 0; trial < TRIALS; trial++) {
      // Each start after the first settles what the killed server before it left, while this trial's clients arrive.
      const server = await serve();
      // Warm: the catalog's first query, so that the burst runs at full speed when the kill comes.
      await burst(server.url, next, received, 1);
      const killAfter = 300 + Math.floor(next() * 600);
      const clients = burst(server.url, next, received, Infinity, trial % 2 === 1);
      await new Promise((resolve) => setTimeout(resolve, killAfter));
      server.process.kill('SIGKILL');
      await clients;
    }
    // The last start settles what the last killed server left; stopped cleanly.
    expect(await (await serve()).stop()).to.equal(0);
    expect(received.filter((r) => r.status === 200).length).to.be.greaterThan(10 * TRIALS);
    // The hot accounts' windows filled up: the check below counts something.
    expect(received.filter((r) => r.status === 429).length).to.be.greaterThan(0);
    // Killed servers had answered requests they had only journaled: their successors settled them.
    const journaled = servers
      .flatMap((server) => server.output().split('\n'))
      .filter((line) => line.includes('did not settle are settled now'))
      .map((line) => (JSON.parse(line) as { journaled: number }).journaled);
    expect(journaled.reduce((sum, lines) => sum + lines, 0)).to.be.greaterThan(0);
    // Killed servers held window slots they had not used: their successors gave them back.
    const returned = servers
      .flatMap((server) => server.output().split('\n'))
      .filter((line) => line.includes('held and did not use are given back'))
      .map((line) => (JSON.parse(line) as { slots: number }).slots);
    expect(returned.reduce((sum, slots) => sum + slots, 0)).to.be.greaterThan(0);

    await withStore(async (store) => {
      expect(await store.query("SELECT request_id FROM ledger WHERE settlement_status = 'pending'")).to.deep.equal([]);
      const rows = await store.query<{ request_id: string; status: number | null; records_charged: number }>(
        'SELECT request_id, status, records_charged::int AS records_charged FROM ledger',
      );
      const byId = new Map(rows.map((r) => [r.request_id, r]));
      for (const got of received.filter((r) => r.status === 200)) {
        expect(byId.get(got.requestId), got.requestId).to.deep.include({ status: 200, records_charged: got.records });
      }
      // Every counter equals what the ledger says, month by month and account by account.
      const mismatched = await store.query(
        `SELECT m.account_id, m.month FROM usage_months m
         LEFT JOIN LATERAL (
           SELECT count(*) FILTER (WHERE l.counted AND date_trunc('month', l.occurred_at AT TIME ZONE 'UTC')::date = m.month) AS used,
                  count(*) FILTER (WHERE l.counted AND l.drawn_month = m.month) AS drawn,
                  coalesce(sum(l.records_charged) FILTER (WHERE date_trunc('month', l.occurred_at AT TIME ZONE 'UTC')::date = m.month), 0) AS records
           FROM ledger l WHERE l.account_id = m.account_id
         ) l ON true
         WHERE m.requests_used <> l.used OR m.requests_drawn <> l.drawn OR m.records_used <> l.records`,
      );
      expect(mismatched).to.deep.equal([]);
      // No window admitted more than its limit (60 a minute), whatever server admitted its requests:
      // every request answered has its row, and a killed server's unused slots are given back only at the
      // next start, once what it journaled counts as used.
      const crowded = await store.query(
        `SELECT account_id, date_trunc('minute', occurred_at) AS minute, count(*)::int AS admitted FROM ledger
         GROUP BY 1, 2 HAVING count(*) > 60`,
      );
      expect(crowded).to.deep.equal([]);
    });
  });
});
