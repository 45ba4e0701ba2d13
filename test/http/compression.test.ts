import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { connect } from 'node:net';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { startTestAppWithCatalog, type TestApp } from '../support/app.js';
import { checkResponse } from '../support/contract.js';

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body as it came over the wire. */
  wire: Buffer;
  /** The body decoded (gunzipped or un-brotlied as Content-Encoding says). */
  text: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('compression of JSON answers (gzip and brotli, negotiated)', function () {
  this.timeout(180_000);
  let app: TestApp;

  before(async () => {
    app = await startTestAppWithCatalog({ jobs: 300, seed: 11 });
  });
  after(() => app?.close());

  /** A GET with exactly these headers (fetch would add and undo Accept-Encoding itself); the answer checked against openapi.yaml. */
  function get(path: string, headers: Record<string, string>): Promise<RawAnswer> {
    return new Promise((resolve, reject) => {
      const req = request(`${app.url}${path}`, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const wire = Buffer.concat(chunks);
          const encoding = res.headers['content-encoding'];
          const raw = encoding === 'gzip' ? gunzipSync(wire) : encoding === 'br' ? brotliDecompressSync(wire) : wire;
          const text = raw.toString('utf8');
          const fetched = new Headers(Object.entries(res.headers).map(([name, value]) => [name, String(value)]));
          const type = String(res.headers['content-type'] ?? '');
          checkResponse('GET', path, res.statusCode!, fetched, type.includes('json') ? JSON.parse(text) : text);
          resolve({ status: res.statusCode!, headers: res.headers, wire, text });
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
  }

  const page = '/v1/jobs?limit=250';

  it('sends a page of 250 jobs gzip or brotli as Accept-Encoding asks, the same JSON in fewer bytes', async () => {
    const { key } = await app.account({ plan: 'paid-25k' });
    const auth = { authorization: `Bearer ${key}` };
    const plain = await get(page, auth);
    const gzip = await get(page, { ...auth, 'accept-encoding': 'gzip' });
    const brotli = await get(page, { ...auth, 'accept-encoding': 'gzip, deflate, br' });
    expect(plain.headers['content-encoding']).to.equal(undefined);
    expect(Number(plain.headers['content-length'])).to.equal(plain.wire.length);
    expect(gzip.headers['content-encoding']).to.equal('gzip');
    expect(brotli.headers['content-encoding']).to.equal('br');
    for (const answer of [gzip, brotli]) {
      expect(answer.status).to.equal(200);
      expect(answer.headers.vary).to.match(/accept-encoding/i);
      expect(answer.wire.length).to.be.below(plain.wire.length / 3);
      // The same jobs (the page is read again: only its request id and metering headers differ).
      expect((JSON.parse(answer.text) as { data: unknown[] }).data).to.deep.equal((JSON.parse(plain.text) as { data: unknown[] }).data);
    }
    expect(brotli.wire.length).to.be.below(gzip.wire.length);
  });

  it('still sends the metering headers and Server-Timing on a compressed answer, and charges it', async () => {
    const { key } = await app.account({ plan: 'paid-25k' });
    const answer = await get('/v1/jobs?limit=120', { authorization: `Bearer ${key}`, 'accept-encoding': 'br' });
    expect(answer.headers['content-encoding']).to.equal('br');
    expect(answer.headers['x-data-records-charged']).to.equal('120');
    expect(answer.headers['x-data-records-used']).to.equal('120');
    expect(answer.headers['ratelimit-remaining']).to.match(/^\d+$/);
    expect(answer.headers['x-request-id']).to.match(/^req_/);
    expect(String(answer.headers['server-timing']))
      .to.match(/catalog;dur=[\d.]+/)
      .and.match(/meter;dur=[\d.]+/);
  });

  it('leaves bodies under 1 KB as they are', async () => {
    const { key } = await app.account({ plan: 'paid-25k' });
    const count = await get('/v1/jobs/count', { authorization: `Bearer ${key}`, 'accept-encoding': 'gzip, br' });
    expect(count.status).to.equal(200);
    expect(count.headers['content-encoding']).to.equal(undefined);
    const error = await get('/v1/jobs?limit=0', { authorization: `Bearer ${key}`, 'accept-encoding': 'gzip, br' });
    expect(error.status).to.equal(400);
    expect(error.headers['content-encoding']).to.equal(undefined);
  });

  it('never compresses an export file again: its bytes, Content-Length and ranges are the file', async () => {
    const { key } = await app.account({ plan: 'paid-25k' });
    const auth = { authorization: `Bearer ${key}` };
    const created = await app.api.post<{ export_id: string }>('/v1/jobs/exports', { max_records: 200 }, { key });
    expect(created.status, created.text).to.equal(202);
    await app.service.exportRunner.idle();
    const path = `/v1/jobs/exports/${created.body.export_id}/files/1`;
    const whole = await get(path, { ...auth, 'accept-encoding': 'gzip, br' });
    expect(whole.status).to.equal(200);
    expect(whole.headers['content-type']).to.equal('application/gzip');
    expect(whole.headers['content-encoding']).to.equal(undefined);
    expect(Number(whole.headers['content-length'])).to.equal(whole.wire.length);
    expect(gunzipSync(whole.wire).toString('utf8')).to.match(/^\{"job_id"/);
    const part = await get(path, { ...auth, 'accept-encoding': 'gzip, br', range: 'bytes=10-1033' });
    expect(part.status).to.equal(206);
    expect(part.headers['content-encoding']).to.equal(undefined);
    expect(part.headers['content-range']).to.equal(`bytes 10-1033/${whole.wire.length}`);
    expect(part.wire.equals(whole.wire.subarray(10, 1034))).to.equal(true);
  });

  it('answers a request without Accept-Encoding as one that accepts only identity: uncompressed, varied the same', async () => {
    const { key } = await app.account({ plan: 'paid-25k' });
    const auth = { authorization: `Bearer ${key}` };
    const created = await app.api.post<{ export_id: string }>('/v1/jobs/exports', { max_records: 50 }, { key });
    await app.service.exportRunner.idle();
    const paths = [page, '/v1/jobs/count', '/v1/jobs?limit=0', `/v1/jobs/exports/${created.body.export_id}/files/1`, '/healthz'];
    for (const path of paths) {
      const none = await get(path, auth);
      const identity = await get(path, { ...auth, 'accept-encoding': 'identity' });
      expect([none.status, none.headers['content-encoding'], none.headers.vary], path).to.deep.equal([
        identity.status,
        identity.headers['content-encoding'],
        identity.headers.vary,
      ]);
    }
    // The JSON answers say they vary with Accept-Encoding; the export file, gzip already, does not.
    expect((await get(page, auth)).headers.vary).to.match(/accept-encoding/i);
    expect((await get(`/v1/jobs/exports/${created.body.export_id}/files/1`, auth)).headers.vary).to.equal(undefined);
  });

  it('gives the charge back when a compressed answer is cut mid-body', async () => {
    const { key, accountId } = await app.account({ plan: 'paid-25k' });
    // Pads the next change-feed page with 24 MB that do not compress: more than the socket buffers hold.
    const feed = app.service.ctx.feed;
    const original = feed.page.bind(feed);
    feed.page = async (...args: Parameters<typeof feed.page>) => {
      delete (feed as Partial<typeof feed>).page;
      const result = await original(...args);
      return { ...result, json: Buffer.concat([result.json, Buffer.from(randomBytes(18 * 1024 * 1024).toString('base64'))]) };
    };
    const { port } = new URL(app.url);
    const socket = await new Promise<ReturnType<typeof connect>>((resolve) => {
      const s = connect(Number(port), '127.0.0.1', () => resolve(s));
      s.on('error', () => undefined);
    });
    socket.write(
      `GET /v1/jobs/changes?since=2000-01-01T00:00:00Z&limit=300 HTTP/1.1\r\nHost: test\r\nAccept-Encoding: gzip\r\nAuthorization: Bearer ${key}\r\n\r\n`,
    );
    const first = await new Promise<Buffer>((resolve) => socket.once('data', resolve));
    expect(first.toString('latin1'))
      .to.match(/^HTTP\/1\.1 200 /)
      .and.match(/content-encoding: gzip/i);
    socket.pause();
    await sleep(300);
    socket.resetAndDestroy();
    await sleep(300);
    await app.service.ctx.meter.idle();
    const rows = await app.store.query<{ status: number; records_charged: number; settlement_status: string }>(
      'SELECT status, records_charged::int AS records_charged, settlement_status FROM ledger WHERE account_id = $1',
      [accountId],
    );
    expect(rows).to.deep.equal([{ status: 499, records_charged: 0, settlement_status: 'not_charged' }]);
  });
});
