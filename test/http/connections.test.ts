import { expect } from 'chai';
import { startTestApp, type TestApp } from '../support/app.js';
import { exchange, get, open, type RawResponse } from './raw-http.js';

type ErrorBody = { error: { code: string; message: string; request_id: string } };

/** The response is the envelope with `code`, its request_id in X-Request-Id, and the connection closes. */
function expectEnvelope(res: RawResponse, status: number, code: string): ErrorBody['error'] {
  expect(res.status, res.body).to.equal(status);
  expect(res.headers['content-type']).to.match(/^application\/json/);
  const body = JSON.parse(res.body) as ErrorBody;
  expect(Object.keys(body)).to.deep.equal(['error']);
  expect(body.error.code).to.equal(code);
  expect(body.error.request_id).to.match(/^req_/).and.equal(res.headers['x-request-id']);
  expect(body.error.message).to.be.a('string').and.not.equal('');
  return body.error;
}

describe('connections', function () {
  this.timeout(60_000);
  let app: TestApp;
  let key: string;

  before(async () => {
    app = await startTestApp();
    ({ key } = await app.account());
  });
  after(() => app.close());

  describe('malformed HTTP (clientError)', () => {
    it('answers a bad request line with 400 in the envelope, with a request id and Connection: close', async () => {
      const res = await exchange(app.url, 'GARBAGE\r\n\r\n');
      const error = expectEnvelope(res, 400, 'invalid_request');
      expect(error.message).to.include('method');
      expect(res.headers.connection).to.equal('close');
      expect(await res.closed).to.equal('end');
    });

    it('answers a header name with a space in it with 400 in the envelope', async () => {
      const res = await exchange(app.url, 'GET /v1/jobs HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n');
      expect(expectEnvelope(res, 400, 'invalid_request').message).to.include('header');
    });

    it('answers a URL over 16 KB with 414 uri_too_long, sent at once or in pieces', async () => {
      const url = `/v1/jobs?q=${'a'.repeat(20_000)}`;
      const res = await exchange(app.url, get(url));
      expect(expectEnvelope(res, 414, 'uri_too_long').message).to.include('16,384');
      const conn = await open(app.url);
      const bytes = get(url);
      for (let at = 0; at < bytes.length; at += 6000) {
        conn.send(bytes.slice(at, at + 6000));
        await new Promise((r) => setTimeout(r, 30));
      }
      expectEnvelope((await conn.responses(1))[0]!, 414, 'uri_too_long');
    });

    it('answers headers over 16 KB with 431 headers_too_large', async () => {
      const res = await exchange(app.url, get('/v1/jobs', { 'X-Padding': 'p'.repeat(20_000) }));
      expectEnvelope(res, 431, 'headers_too_large');
      const many = Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`X-H${i}`, 'x'.repeat(40)]));
      expectEnvelope(await exchange(app.url, get('/v1/jobs', many)), 431, 'headers_too_large');
    });

    it('answers a chunked body with a bad chunk size with 400, and the handler never runs', async () => {
      const head = `POST /v1/jobs/search HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
      const res = await exchange(app.url, `${head}ZZ\r\n{}\r\n0\r\n\r\n`);
      const error = expectEnvelope(res, 400, 'invalid_request');
      expect(error.message).to.include('chunk');
      // The ledger row of this request (if the request got that far) never records the handler's answer.
      await new Promise((r) => setTimeout(r, 300));
      await app.service.ctx.meter.idle();
      const rows = await app.store.query<{ status: number | null }>('SELECT status FROM ledger WHERE request_id = $1', [error.request_id]);
      for (const row of rows) expect(row.status).to.be.oneOf([null, 400, 499]);
    });
  });

  describe('bodies', () => {
    it('refuses at once a declared Content-Length over 16,384 bytes, without waiting for the body', async () => {
      const started = Date.now();
      const conn = await open(app.url);
      conn.send(
        `POST /v1/jobs/search HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 50000\r\n\r\n{"title":`,
      );
      const [res] = await conn.responses(1, 5000);
      expect(Date.now() - started).to.be.below(2000);
      expect(expectEnvelope(res!, 400, 'invalid_request').message).to.include('16384');
      expect(res!.headers.connection).to.equal('close');
      expect(await conn.closed).to.equal('end');
    });

    it('answers 408 request_timeout when a declared body does not arrive within the request timeout', async () => {
      const slow = await startTestApp({ requestTimeoutMs: 1000 });
      try {
        const { key: slowKey } = await slow.account();
        const started = Date.now();
        const conn = await open(slow.url);
        conn.send(
          `PUT /v1/account/overage HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${slowKey}\r\nContent-Type: application/json\r\nContent-Length: 16\r\n\r\n{"enab`,
        );
        const [res] = await conn.responses(1, 8000);
        expectEnvelope(res!, 408, 'request_timeout');
        expect(Date.now() - started).to.be.below(5000);
        expect(await conn.closed).to.equal('end');
      } finally {
        await slow.close();
      }
    });
  });

  describe('keep-alive', () => {
    it('keeps an idle connection open longer than load balancers do (Keep-Alive: timeout=65)', async () => {
      const conn = await open(app.url);
      conn.send(get('/healthz'));
      const [first] = await conn.responses(1);
      expect(first!.headers['keep-alive']).to.equal('timeout=65');
      // Node's default closed an idle connection after 5 s: a client reusing it then failed.
      await new Promise((r) => setTimeout(r, 5_500));
      conn.send(get('/healthz'));
      const [second] = await conn.responses(1);
      expect(second!.status).to.equal(200);
      conn.socket.destroy();
    });
  });

  describe('connection cap', () => {
    it('closes connections beyond maxConnections at once, and serves the others', async () => {
      const capped = await startTestApp({ maxConnections: 2 });
      try {
        const [a, b] = [await open(capped.url), await open(capped.url)];
        const c = await open(capped.url);
        c.send(get('/healthz'));
        expect(await Promise.race([c.closed, new Promise((r) => setTimeout(() => r('open'), 2000))])).to.not.equal('open');
        a.send(get('/healthz'));
        expect((await a.responses(1))[0]!.status).to.equal(200);
        a.socket.destroy();
        b.socket.destroy();
      } finally {
        await capped.close();
      }
    });
  });
});
