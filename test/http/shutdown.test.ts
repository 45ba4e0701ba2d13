import { expect } from 'chai';
import { request } from 'node:http';
import { startTestApp } from '../support/app.js';
import { checkResponse } from '../support/contract.js';

describe('shutdown', () => {
  it('finishes a request in flight before closing, and refuses new connections meanwhile', async () => {
    const app = await startTestApp();
    const { key } = await app.account();
    const url = new URL('/v1/account/overage', app.url);
    const body = JSON.stringify({ enabled: true });
    const answered = new Promise<{ status: number; text: string }>((done, fail) => {
      const req = request(url, { method: 'PUT', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': body.length } }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => {
          checkResponse('PUT', url.pathname, res.statusCode ?? 0, new Headers(res.headers as Record<string, string>), JSON.parse(text));
          done({ status: res.statusCode ?? 0, text });
        });
      });
      req.on('error', fail);
      req.write(body.slice(0, 5));
      setTimeout(() => req.end(body.slice(5)), 300);
    });
    await new Promise((r) => setTimeout(r, 100));
    let closed = false;
    const closing = app.service.close().then(() => (closed = true));
    const health = await fetch(`${app.url}/healthz`).then(
      (r) => r.status,
      () => 'refused',
    );
    expect(health).to.equal('refused');
    const res = await answered;
    expect(res.status).to.equal(200);
    expect(JSON.parse(res.text)).to.include({ enabled: true });
    await closing;
    expect(closed).to.equal(true);
    expect(app.service.ctx.draining).to.equal(true);
    await app.store.close();
  });
});
