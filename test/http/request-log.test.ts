import { expect } from 'chai';
import pino from 'pino';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { publish } from '../../src/catalog/publish/publish.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { writeDay } from '../support/delivery.js';

interface Line {
  level: number;
  msg: string;
  request_id?: string;
  req?: { method: string; url: string };
  res?: { statusCode: number };
  responseTime?: number;
}

const LEVEL = { info: 30, warn: 40, error: 50 };

describe('the request log', function () {
  this.timeout(60_000);
  let app: TestApp;
  const lines: Line[] = [];

  before(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const text of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(text) as Line);
        done();
      },
    });
    app = await startTestApp({}, { logger: pino({ level: 'info' }, sink) });
  });
  // The test closes the store itself (to make the service fail): closing it again fails.
  after(() => app?.close().catch(() => undefined));

  async function levelOfAnswer(path: string, key: string): Promise<{ status: number; level: number | undefined }> {
    const res = await app.api.get(path, { key });
    const id = res.headers.get('x-request-id');
    await new Promise((resolve) => setTimeout(resolve, 50));
    return { status: res.status, level: lines.find((l) => l.request_id === id && l.res)?.level };
  }

  it('writes one line a request: its id, method and URL, status and milliseconds, and nothing of its headers', async () => {
    const { key } = await app.account();
    const res = await app.api.get('/v1/jobs?limit=0', { key });
    const id = res.headers.get('x-request-id');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const mine = lines.filter((l) => l.request_id === id);
    expect(mine).to.have.length(1);
    const [line] = mine as [Line];
    expect(line).to.deep.include({ msg: 'request completed', req: { method: 'GET', url: '/v1/jobs?limit=0' }, res: { statusCode: 400 } });
    expect(line.responseTime).to.be.a('number').and.at.least(0);
    expect(JSON.stringify(line)).not.to.include(key);
  });

  it("logs a client's mistake and what it asked for that is not published at info, an expected refusal at warn, a failure at error", async () => {
    const { key } = await app.account();
    expect(await levelOfAnswer('/v1/jobs?limit=0', key)).to.deep.equal({ status: 400, level: LEVEL.info });
    // No catalog is published yet: an expected refusal, retried by the client.
    expect(await levelOfAnswer('/v1/jobs/count', key)).to.deep.equal({ status: 503, level: LEVEL.warn });
    const day = await writeDay(join(app.config.dataDir, '..', 'delivery'), 1, {
      postings: [{ source: 'greenhouse', board: 'acme', id: '1', opening: 'A' }],
    });
    await publish({ input: day, snapshotsDir: app.config.snapshotsDir, dataDir: app.config.dataDir, quiet: true, memoryLimit: '1GB' });
    await app.service.watcher.check();
    // HTML descriptions are not published: what the client asked for, answered 503 by the spec.
    expect(await levelOfAnswer('/v1/jobs?description_format=html', key)).to.deep.equal({ status: 503, level: LEVEL.info });
    // A key the server has not seen yet must be read from the store, which fails.
    const unseen = await app.account();
    await app.store.close();
    expect(await levelOfAnswer('/v1/jobs/count', unseen.key)).to.deep.equal({ status: 500, level: LEVEL.error });
  });
});
