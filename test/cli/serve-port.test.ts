import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../../src/config.js';
import { openState } from '../../src/db/open-state.js';
import { startService } from '../../src/service.js';
import { seededDataDir, tempDir } from '../support/app.js';
import { cliEntry } from '../support/cli.js';

/** A listener holding a free port of 127.0.0.1, as another program would. */
async function holdPort(port = 0): Promise<Server> {
  const server = createServer();
  await new Promise<void>((done, fail) => server.once('error', fail).listen(port, '127.0.0.1', done));
  return server;
}

const portOf = (server: Server) => (server.address() as AddressInfo).port;

/** `serve` as a child process, killed if it has not exited within `limitMs` (before the fix, it never did). */
function serveOnce(args: string[], limitMs: number): Promise<{ code: number | null; stderr: string; ms: number }> {
  return new Promise((done, fail) => {
    const started = Date.now();
    const child = spawn(process.execPath, [...cliEntry(), 'serve', ...args], {
      env: { ...process.env, JPS_LOG_LEVEL: 'silent' },
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
    child.on('error', fail);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stderr, ms: Date.now() - started });
    });
  });
}

describe('serve on a port already in use', function () {
  this.timeout(120_000);
  let root: string;

  beforeEach(async () => {
    root = await tempDir('port');
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('exits non-zero at once with one line naming the port and how to choose another, opening nothing', async () => {
    const taken = await holdPort();
    try {
      const port = portOf(taken);
      const dataDir = join(root, 'data');
      const result = await serveOnce(['--port', String(port), '--data-dir', dataDir, '--snapshots-dir', join(root, 'snapshots')], 30_000);
      expect(result.code, result.stderr).to.equal(1);
      const lines = result.stderr.trimEnd().split('\n');
      expect(lines, result.stderr).to.have.length(1);
      expect(lines[0]).to.include(`port ${port}`).and.include('--port').and.include('JPS_PORT').and.include('npm start -- --port');
      expect(existsSync(join(dataDir, 'admin.sock')), 'admin socket').to.equal(false);
      expect(existsSync(join(dataDir, 'state.lock')), 'store lock').to.equal(false);
      expect(existsSync(join(dataDir, 'state')), 'the store was not even opened').to.equal(false);
    } finally {
      taken.close();
    }
  });

  it('closes what it opened (admin socket, store lock) when the port is taken while the core opens', async () => {
    // A free port now; another program takes it after the check, while the store opens.
    const probe = await holdPort();
    const port = portOf(probe);
    await new Promise((done) => probe.close(done));
    // Its store already made, as a restarted server finds it: still opening when the port is taken below.
    const dataDir = await seededDataDir(join(root, 'data'));
    const config = { ...loadConfig({}, {}), port, dataDir, snapshotsDir: join(root, 'snapshots'), logLevel: 'silent', ledgerCompactMs: 0 };
    const starting = startService(config);
    starting.catch(() => undefined);
    while (!existsSync(join(dataDir, 'state.lock'))) await sleep(5);
    const taken = await holdPort(port);
    try {
      const error = await starting.then(
        (service) => service.close().then(() => expect.fail('the service started on a port in use')),
        (failure: unknown) => failure as Error,
      );
      expect(error.message).to.include(`port ${port}`).and.include('JPS_PORT');
      expect(error.stack ?? '').not.to.include('listen EADDRINUSE');
      expect(existsSync(join(dataDir, 'admin.sock')), 'admin socket').to.equal(false);
      expect(existsSync(join(dataDir, 'state.lock')), 'store lock').to.equal(false);
      const state = await openState(config, { role: 'cli' });
      await state.close();
    } finally {
      taken.close();
    }
  });
});
