import { expect } from 'chai';
import express, { type ErrorRequestHandler, type Request, type RequestHandler } from 'express';
import { once } from 'node:events';
import { createServer, IncomingMessage, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inOrder, listener } from '../../src/http/stages.js';

/** A GET of `path` on `server`: its status and body, or the error of a connection cut before an answer. */
function get(server: Server, path: string): Promise<{ status: number; body: string } | { error: string }> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve) => {
    const req = request({ port, host: '127.0.0.1', path }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    req.end();
  });
}

describe('the request listener: stages in order on Express requests, without its router', () => {
  const servers: Server[] = [];
  after(() => servers.forEach((server) => server.close()));

  /** A server on port 0 running `stages`, then `failed`; what `lost` hears is kept. */
  async function serve(stages: RequestHandler[], failed: ErrorRequestHandler[]) {
    const lost: unknown[] = [];
    const app = listener(express(), inOrder(stages), failed, (error) => lost.push(error));
    const server = createServer({ IncomingMessage: app.IncomingMessage, ServerResponse: app.ServerResponse }, app.listener);
    servers.push(server);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return { server, lost, app };
  }

  it("gives every request and response Express's methods and the router's top-level fields, from classes made once", async () => {
    const seen: Request[] = [];
    const { server, app } = await serve(
      [
        (req, res) => {
          seen.push(req);
          res
            .status(201)
            .json({ path: req.path, query: req.query, originalUrl: req.originalUrl, baseUrl: req.baseUrl, params: req.params });
        },
      ],
      [],
    );
    const first = await get(server, '/v1/Jobs?limit=2&q=nurse');
    const second = await get(server, '/healthz');
    expect(first).to.deep.equal({
      status: 201,
      body: JSON.stringify({
        path: '/v1/Jobs',
        query: { limit: '2', q: 'nurse' },
        originalUrl: '/v1/Jobs?limit=2&q=nurse',
        baseUrl: '',
        params: {},
      }),
    });
    expect(second).to.have.property('status', 201);
    // Made by the server of the listener's class (node's, extended once), not given a prototype each.
    for (const req of seen) {
      expect(req).to.be.an.instanceOf(IncomingMessage);
      expect(Object.getPrototypeOf(req)).to.equal(app.IncomingMessage.prototype);
    }
    expect(seen[0]!.res!.locals).to.deep.equal({});
  });

  it('runs the stages in order and sends an error passed, thrown or rejected past the rest to the error handlers in order', async () => {
    const order: string[] = [];
    const step =
      (name: string): RequestHandler =>
      (_req, _res, next) => {
        order.push(name);
        next();
      };
    const failing: Record<string, RequestHandler> = {
      '/passed': (_req, _res, next) => next(new Error('passed')),
      '/thrown': () => {
        throw new Error('thrown');
      },
      '/rejected': () => Promise.reject(new Error('rejected')),
    };
    const { server, lost } = await serve(
      [step('first'), (req, res, next) => failing[req.path]!(req, res, next), step('never')],
      [
        (error: Error, _req, _res, next) => {
          order.push(`words ${error.message}`);
          next(new Error(`${error.message}, in words`));
        },
        (error: Error, _req, res, _next) => {
          res.status(400).send(error.message);
        },
      ],
    );
    for (const path of Object.keys(failing)) {
      order.length = 0;
      const name = path.slice(1);
      expect(await get(server, path)).to.deep.equal({ status: 400, body: `${name}, in words` });
      expect(order).to.deep.equal(['first', `words ${name}`]);
    }
    expect(lost).to.deep.equal([]);
  });

  it('cuts the connection and says so when the error handlers fail or none answers', async () => {
    const { server, lost } = await serve(
      [(req, _res, next) => next(req.path === '/unanswered' ? undefined : new Error('bad'))],
      [
        (error: Error) => {
          throw new Error(`handling ${error.message} failed`);
        },
      ],
    );
    expect(await get(server, '/failing')).to.deep.equal({ error: 'ECONNRESET' });
    expect(await get(server, '/unanswered')).to.deep.equal({ error: 'ECONNRESET' });
    expect(lost.map((error) => (error as Error).message)).to.deep.equal(['handling bad failed', 'handling No stage answered failed']);
  });
});
