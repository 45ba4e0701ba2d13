import { expect } from 'chai';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { generateCorpus } from '../../src/catalog/generator/corpus.js';
import { publish } from '../../src/catalog/publish/publish.js';
import type { StateStore } from '../../src/db/state-store.js';
import { SessionRegistry, SESSIONS_PER_KEY } from '../../src/mcp/session-registry.js';
import { FILES_PER_SESSION } from '../../src/mcp/session.js';
import type { S3Store } from '../../src/storage/s3-store.js';
import { freshPostgresStore, startTestApp, tempDir, type TestApp } from '../support/app.js';
import { output, overReplicas, sessionIdOf, toolError } from '../support/mcp.js';
import { startS3, useS3Environment, type TestS3 } from '../support/s3.js';

interface Job {
  job_id: string;
}
interface Saved {
  file: { file_id: string; jobs: number };
}
interface Read {
  jobs: Job[];
  next_offset: number | null;
  total: number;
}

const PREFIX = 'mcp-replicas';

/**
 * Until `app` serves the catalog: a look of its watcher that fails (the shared bucket slow to answer on a
 * loaded machine) is taken again, as its next poll would.
 */
async function serving(app: TestApp): Promise<void> {
  for (let look = 0; look < 20 && !app.service.ctx.publications.catalog; look++) {
    await app.service.watcher.check();
    if (!app.service.ctx.publications.catalog) await new Promise((resolve) => setTimeout(resolve, 250));
  }
  expect(app.service.ctx.publications.catalog, 'the replica serves the catalog').to.not.equal(null);
}

describe('MCP sessions across replicas (Streamable HTTP behind a load balancer without affinity)', function () {
  this.timeout(300_000);
  let s3: TestS3;
  let restoreEnvironment: () => void;
  let store: StateStore;
  let root: string;
  let a: TestApp;
  let b: TestApp;
  let bucket: S3Store;
  /** The replica the next request goes to. */
  let to: TestApp;
  const clients: Client[] = [];

  before(async () => {
    s3 = await startS3();
    restoreEnvironment = useS3Environment(s3);
    store = await freshPostgresStore();
    root = await tempDir('mcp-replicas');
    // Both replicas serve the publications of one folder; everything else they share is in the store and the bucket.
    const shared = { objectStore: s3.url(PREFIX), snapshotsDir: join(root, 'snapshots') };
    a = await startTestApp(shared, { store });
    b = await startTestApp(shared, { store });
    await generateCorpus({ jobs: 300, seed: 21, days: 1, start: '2026-11-18' }, join(root, 'corpus'), { workers: 0 });
    await publish({
      input: join(root, 'corpus', 'day-001'),
      snapshotsDir: shared.snapshotsDir,
      dataDir: a.config.dataDir,
      objectStore: shared.objectStore,
      quiet: true,
      memoryLimit: '1GB',
    });
    await Promise.all([serving(a), serving(b)]);
    bucket = s3.store(PREFIX);
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await store?.close();
    await rm(root, { recursive: true, force: true });
    restoreEnvironment?.();
    await s3?.stop();
  });

  /** A client of a fresh key, its first request (initialize) sent to `first`. */
  async function agent(first: TestApp) {
    const { key, keyId } = await a.account({ plan: 'paid-25k' });
    to = first;
    const client = await overReplicas(() => to.url, key);
    clients.push(client);
    const on = async (replica: TestApp, name: string, args: Record<string, unknown> = {}) => {
      to = replica;
      return client.callTool({ name, arguments: args });
    };
    return { key, keyId, client, on, session: sessionIdOf(client) };
  }
  async function readAll(
    on: (replica: TestApp, name: string, args: Record<string, unknown>) => ReturnType<Client['callTool']>,
    replica: TestApp,
    fileId: string,
  ): Promise<Job[]> {
    const jobs: Job[] = [];
    for (let offset: number | null = 0; offset !== null;) {
      const page: Read = output(await on(replica, 'read_file', { file_id: fileId, offset, limit: 25 }));
      jobs.push(...page.jobs);
      offset = page.next_offset;
    }
    return jobs;
  }
  const post = (replica: TestApp, key: string, session: string, body: unknown) =>
    fetch(new URL('/mcp', replica.url), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': session,
      },
      body: JSON.stringify(body),
    });
  const objectsOf = async (session: string) => (await bucket.list(`mcp/${session}/`)).map((o) => o.key);

  it('continues on replica B a session initialized on replica A: tools/list and tool calls answer there', async () => {
    const { client, on, session } = await agent(a);
    to = b;
    expect((await client.listTools()).tools).to.have.length(9);
    const onB = output<{ count: number; charged: unknown }>(await on(b, 'count_jobs', {}));
    expect(onB.charged).to.deep.equal({ requests: 1, records: 0 });
    const onA = output<{ count: number }>(await on(a, 'count_jobs', {}));
    expect(onB.count).to.equal(onA.count).and.be.above(0);
    expect(output<{ requests: { used: number } }>(await on(b, 'get_usage')).requests.used).to.equal(2);
    expect(sessionIdOf(client)).to.equal(session);
  });

  it('reads on one replica the file saved on the other, both ways, from objects of the shared bucket', async () => {
    const { on, session } = await agent(a);
    const onA = output<Saved>(await on(a, 'search_jobs', { country: 'US', save_to_file: true, fields: ['job_id'] }));
    const page = output<{ jobs: Job[] }>(await on(b, 'search_jobs', { country: 'US', limit: 25, fields: ['job_id'] }));
    const readOnB = await readAll(on, b, onA.file.file_id);
    expect(readOnB).to.have.length(onA.file.jobs);
    expect(readOnB.slice(0, 25)).to.deep.equal(page.jobs);

    const onB = output<Saved>(await on(b, 'search_jobs', { country: 'US', save_to_file: true, fields: ['job_id'] }));
    expect(await readAll(on, a, onB.file.file_id)).to.deep.equal(readOnB);
    expect(await objectsOf(session)).to.have.members([
      `mcp/${session}/${onA.file.file_id}.jsonl`,
      `mcp/${session}/${onB.file.file_id}.jsonl`,
    ]);
  });

  it(`keeps a session's ${FILES_PER_SESSION} newest files whichever replica saves them, deleting the objects of older ones`, async () => {
    const { on, session } = await agent(a);
    const saved: string[] = [];
    for (let i = 0; i <= FILES_PER_SESSION; i++)
      saved.push(
        output<Saved>(await on(i % 2 === 0 ? a : b, 'search_jobs', { country: 'US', save_to_file: true, fields: ['job_id'] })).file.file_id,
      );
    expect(toolError(await on(b, 'read_file', { file_id: saved[0] }))).to.include({ code: 'file_not_found', http_status: 404 });
    expect(output<Read>(await on(a, 'read_file', { file_id: saved[1] })).total).to.be.above(0);
    expect((await objectsOf(session)).sort()).to.deep.equal(
      saved
        .slice(1)
        .map((id) => `mcp/${session}/${id}.jsonl`)
        .sort(),
    );
  });

  it('answers 404 on replica B to another key, and to an id no replica opened', async () => {
    const { key, session } = await agent(a);
    const other = await a.account({ plan: 'paid-25k' });
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    const stolen = await post(b, other.key, session, list);
    expect(stolen.status).to.equal(404);
    expect(((await stolen.json()) as { error: { code: number } }).error.code).to.equal(-32001);
    expect((await post(b, key, '00000000-0000-4000-8000-000000000000', list)).status).to.equal(404);
    // The session is still the owner's on either replica, and each answer names it.
    const own = await post(b, key, session, list);
    expect(own.status).to.equal(200);
    expect(own.headers.get('mcp-session-id')).to.equal(session);
  });

  it('sees on one replica the confirmation level set on the other', async () => {
    const { on } = await agent(a);
    output(await on(a, 'set_confirmation_level', { level: 'always' }));
    expect(output<{ confirmation_level: string }>(await on(b, 'get_usage')).confirmation_level).to.equal('always');
    expect(output<{ status: string }>(await on(b, 'count_jobs', {})).status).to.equal('confirmation_required');
    output(await on(b, 'set_confirmation_level', { level: 'never' }));
    expect(output<{ status: string }>(await on(a, 'count_jobs', {})).status).to.equal('done');
  });

  it('ends the session on every replica with DELETE on one, deleting its files', async () => {
    const { key, client, on, session } = await agent(a);
    output<Saved>(await on(a, 'search_jobs', { country: 'US', save_to_file: true, fields: ['job_id'] }));
    expect(await objectsOf(session)).to.have.length(1);
    to = b;
    await (client.transport as StreamableHTTPClientTransport).terminateSession();
    expect((await post(a, key, session, { jsonrpc: '2.0', id: 3, method: 'tools/list' })).status).to.equal(404);
    expect(await objectsOf(session)).to.deep.equal([]);
  });

  it(`keeps a key to ${SESSIONS_PER_KEY} sessions opened on any replica: one more ends the least recently used`, async () => {
    const { key, session: oldest, on } = await agent(a);
    const sessions = [oldest];
    for (let i = 1; i < SESSIONS_PER_KEY; i++) {
      to = i % 2 === 0 ? a : b;
      sessions.push(sessionIdOf(await overReplicasOf(key)));
    }
    // The first is used again: the second is now the least recently used.
    output(await on(b, 'list_fields'));
    to = b;
    await overReplicasOf(key);
    const list = { jsonrpc: '2.0', id: 4, method: 'tools/list' };
    expect((await post(a, key, sessions[1]!, list)).status).to.equal(404);
    expect((await post(a, key, oldest, list)).status).to.equal(200);
    expect((await post(b, key, sessions[2]!, list)).status).to.equal(200);
  });

  it('ends a session idle past its time on every replica, and the sweep deletes its files', async () => {
    const { key, on, session } = await agent(b);
    output<Saved>(await on(b, 'search_jobs', { country: 'US', save_to_file: true, fields: ['job_id'] }));
    // Idle for longer than the idle time, as the store's clock tells it.
    await store.query("UPDATE mcp_sessions SET last_used_at = now() - interval '1 day' WHERE session_id = $1", [session]);
    const list = { jsonrpc: '2.0', id: 5, method: 'tools/list' };
    expect((await post(a, key, session, list)).status).to.equal(404);
    expect((await post(b, key, session, list)).status).to.equal(404);
    const registry = new SessionRegistry(a.service.ctx);
    await registry.sweep();
    await registry.close();
    expect(await objectsOf(session)).to.deep.equal([]);
  });

  async function overReplicasOf(key: string): Promise<Client> {
    const client = await overReplicas(() => to.url, key);
    clients.push(client);
    return client;
  }
});
