import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { seededDataDir, startTestApp, tempDir } from '../support/app.js';
import { cliEntry, runCli } from '../support/cli.js';
import { checkResponse } from '../support/contract.js';
import { get, open, type RawConnection, type RawResponse } from './raw-http.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('shutdown', () => {
  it('finishes a request in flight before closing, and refuses new connections meanwhile', async () => {
    const app = await startTestApp();
    const { key } = await app.account();
    const url = new URL('/v1/account/overage', app.url);
    const body = JSON.stringify({ enabled: true });
    const answered = new Promise<{ status: number; text: string; connection: string | undefined }>((done, fail) => {
      const req = request(
        url,
        { method: 'PUT', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': body.length } },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => {
            checkResponse('PUT', url.pathname, res.statusCode ?? 0, new Headers(res.headers as Record<string, string>), JSON.parse(text));
            done({ status: res.statusCode ?? 0, text, connection: res.headers.connection });
          });
        },
      );
      req.on('error', fail);
      req.write(body.slice(0, 5));
      setTimeout(() => req.end(body.slice(5)), 300);
    });
    await new Promise((r) => setTimeout(r, 100));
    let closed = false;
    const closing = app.service.close().then(() => (closed = true));
    // Connections the kernel took before the close are still accepted (and answered); later ones are refused.
    await new Promise((r) => setTimeout(r, 100));
    const health = await fetch(`${app.url}/healthz`).then(
      (r) => r.status,
      () => 'refused',
    );
    expect(health).to.equal('refused');
    const res = await answered;
    expect(res.status).to.equal(200);
    expect(JSON.parse(res.text)).to.include({ enabled: true });
    // An answer sent while draining tells the client not to reuse the connection.
    expect(res.connection).to.equal('close');
    await closing;
    expect(closed).to.equal(true);
    expect(app.service.ctx.draining).to.equal(true);
    await app.store.close();
  });

  describe('of the server process, with 24 requests in flight', function () {
    this.timeout(120_000);
    let root: string;
    let dataDir: string;
    let putKey: string;
    let getKey: string;

    before(async () => {
      root = await tempDir('shutdown');
      dataDir = await seededDataDir(join(root, 'data'));
      const key = async () => {
        const created = await runCli(['accounts', 'create', '--plan', 'paid-25k', '--json', '--data-dir', dataDir]);
        const { account_id: accountId } = JSON.parse(created.stdout) as { account_id: string };
        const issued = await runCli(['keys', 'create', '--account', accountId, '--json', '--data-dir', dataDir]);
        return (JSON.parse(issued.stdout) as { key: string }).key;
      };
      putKey = await key();
      getKey = await key();
    });
    after(() => rm(root, { recursive: true, force: true }));

    interface Server {
      url: string;
      child: ChildProcess;
      exited: Promise<number | null>;
      stdout: () => string;
    }

    /** Starts `serve` the way an operator does: `npm run cli -- serve` (npm → node), or node itself. */
    function serve(how: 'npm' | 'node', extra: string[] = []): Promise<Server> {
      const args = ['serve', '--json', '--port', '0', '--data-dir', dataDir, '--snapshots-dir', join(root, 'snapshots'), ...extra];
      const child =
        how === 'npm'
          ? spawn('npm', ['run', '--silent', 'cli', '--', ...args], {
              cwd: ROOT,
              detached: true,
              env: { ...process.env, JPS_LOG_LEVEL: 'info' },
            })
          : spawn(process.execPath, [...cliEntry(), ...args], {
              cwd: ROOT,
              detached: true,
              env: { ...process.env, JPS_LOG_LEVEL: 'info' },
            });
      let stdout = '';
      let stderr = '';
      const exited = new Promise<number | null>((done) => child.on('exit', (code, signal) => done(code ?? (signal ? 128 + 15 : null))));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      return new Promise((done, fail) => {
        child.stdout.on('data', (c: Buffer) => {
          stdout += c.toString();
          const line = stdout.split('\n').find((l) => l.startsWith('{"url"'));
          if (line) done({ url: (JSON.parse(line) as { url: string }).url, child, exited, stdout: () => stdout });
        });
        void exited.then((code) => fail(new Error(`serve exited with ${code} before listening:\n${stderr}`)));
      });
    }

    const put = (key: string, body: string) =>
      `PUT /v1/account/overage HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;

    /**
     * 24 requests sent before the signal and not answered yet: 2 pipelined GETs on each of 4 warm
     * keep-alive connections, a GET on each of 8 connections opened just before the signal (some still
     * waiting to be accepted), and 8 PUTs whose bodies are half sent (finished after the signal).
     */
    async function inFlight(url: string, signal: () => void): Promise<RawResponse[][]> {
      const auth = { Authorization: `Bearer ${getKey}` };
      const warm: RawConnection[] = [];
      for (let i = 0; i < 4; i++) {
        const conn = await open(url);
        conn.send(get('/v1/jobs/exports', auth));
        expect((await conn.responses(1))[0]!.status).to.equal(200);
        warm.push(conn);
      }
      const body = JSON.stringify({ enabled: true });
      const puts: RawConnection[] = [];
      for (let i = 0; i < 8; i++) {
        const conn = await open(url);
        conn.send(put(putKey, body) + body.slice(0, 4));
        puts.push(conn);
      }
      await new Promise((r) => setTimeout(r, 300));
      const fresh = await Promise.all(Array.from({ length: 8 }, () => open(url)));
      for (const conn of fresh) conn.send(get('/v1/jobs/exports', auth));
      for (const conn of warm) conn.send(get('/v1/jobs/exports', auth).repeat(2));
      signal();
      await new Promise((r) => setTimeout(r, 200));
      for (const conn of puts) conn.send(body.slice(4));
      const answers = await Promise.all([
        ...warm.map((c) => c.responses(2)),
        ...fresh.map((c) => c.responses(1)),
        ...puts.map((c) => c.responses(1)),
      ]);
      // The server closes every connection once its requests are answered.
      expect(await Promise.all([...warm, ...fresh, ...puts].map((c) => c.closed))).to.not.include('reset');
      return answers;
    }

    function expectAllAnswered(answers: RawResponse[][]): void {
      const all = answers.flat();
      expect(all).to.have.length(24);
      for (const res of all) expect(res.status, res.body).to.equal(200);
      // No connection is closed with a request still to answer on it; the PUTs, answered while
      // draining, tell their clients not to reuse the connection.
      for (const answer of answers) for (const earlier of answer.slice(0, -1)) expect(earlier.headers.connection).to.not.equal('close');
      for (const [put] of answers.slice(-8)) expect(put!.headers.connection).to.equal('close');
    }

    it('answers every one and exits 0 on SIGTERM to the server process', async () => {
      const server = await serve('node');
      const answers = await inFlight(server.url, () => server.child.kill('SIGTERM'));
      expectAllAnswered(answers);
      expect(await server.exited).to.equal(0);
    });

    it('answers every one and exits 0 on SIGTERM to the process group of `npm run cli -- serve`', async () => {
      const server = await serve('npm');
      const answers = await inFlight(server.url, () => process.kill(-server.child.pid!, 'SIGTERM'));
      expectAllAnswered(answers);
      expect(await server.exited).to.equal(0);
    });

    it('exits non-zero at the shutdown timeout, with a log line naming how many requests it cut', async () => {
      const server = await serve('node', ['--shutdown-timeout-ms', '1000']);
      const conn = await open(server.url);
      conn.send(put(putKey, '{"enabled":true}') + '{"ena');
      await new Promise((r) => setTimeout(r, 300));
      const started = Date.now();
      server.child.kill('SIGTERM');
      expect(await server.exited).to.equal(1);
      expect(Date.now() - started).to.be.below(5000);
      const line = server
        .stdout()
        .split('\n')
        .find((l) => l.includes('"cut"'));
      expect(line, server.stdout()).to.be.a('string');
      expect(JSON.parse(line!)).to.include({ cut: 1 });
      expect(await conn.closed).to.be.oneOf(['end', 'reset']);
    });
  });
});
