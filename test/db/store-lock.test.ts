import { expect } from 'chai';
import { utimesSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { StoreLock } from '../../src/db/store-lock.js';
import { tempDir } from '../support/app.js';

describe('embedded store lock', () => {
  const dirs: string[] = [];
  const lockDir = async () => {
    dirs.push(await tempDir('lock'));
    return dirs.at(-1)!;
  };
  after(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

  it('lets one holder in and names it to the next', async () => {
    const dir = await lockDir();
    const first = StoreLock.acquire(dir, { role: 'server', socket: '/tmp/x.sock' });
    expect(first).to.be.instanceOf(StoreLock);
    const second = StoreLock.acquire(dir, { role: 'cli' });
    expect(second).to.deep.include({ heldBy: { ...(first as StoreLock).holder } });
    (first as StoreLock).release();
    const third = StoreLock.acquire(dir, { role: 'cli' });
    expect(third).to.be.instanceOf(StoreLock);
    (third as StoreLock).release();
    expect(existsSync(join(dir, 'state.lock'))).to.equal(false);
  });

  it('takes over a lock left by a process that is gone', async () => {
    const dir = await lockDir();
    writeFileSync(join(dir, 'state.lock'), JSON.stringify({ pid: 2 ** 22 + 17, role: 'server', started_at: '2026-01-01T00:00:00Z' }));
    const lock = StoreLock.acquire(dir, { role: 'cli' });
    expect(lock).to.be.instanceOf(StoreLock);
    expect(JSON.parse(readFileSync(join(dir, 'state.lock'), 'utf8'))).to.include({ pid: process.pid, role: 'cli' });
    (lock as StoreLock).release();
  });

  it('takes over a torn lock file whose writer died before writing', async () => {
    const dir = await lockDir();
    const path = join(dir, 'state.lock');
    writeFileSync(path, '');
    utimesSync(path, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    const lock = StoreLock.acquire(dir, { role: 'cli' });
    expect(lock).to.be.instanceOf(StoreLock);
    (lock as StoreLock).release();
  });
});
