// One process at a time: a lock file in the data folder naming its holder (and a server's admin socket).
// It guards the embedded store (state.lock) and publications (publish.lock).

import { openSync, writeSync, closeSync, readFileSync, unlinkSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface LockHolder {
  pid: number;
  role: 'server' | 'cli';
  /** The server's admin socket, where other processes send account and key commands. */
  socket?: string;
  started_at: string;
}

/** True while a process with this pid runs (one of another user's counts: it answers EPERM). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readHolder(path: string): LockHolder | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as LockHolder;
  } catch {
    return undefined; // missing, or being written this instant
  }
}

export class StoreLock {
  private released = false;
  private readonly onExit = () => this.release();

  private constructor(
    readonly path: string,
    readonly holder: LockHolder,
  ) {
    process.once('exit', this.onExit);
  }

  /**
   * Takes the lock file `name` in `dataDir`, or reports the live process that holds it.
   * A lock left by a dead process is taken over.
   */
  static acquire(dataDir: string, holder: Omit<LockHolder, 'pid' | 'started_at'>, name = 'state.lock'): StoreLock | { heldBy: LockHolder } {
    mkdirSync(dataDir, { recursive: true });
    const path = join(dataDir, name);
    const mine: LockHolder = { pid: process.pid, started_at: new Date().toISOString(), ...holder };
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        const fd = openSync(path, 'wx', 0o600);
        writeSync(fd, JSON.stringify(mine));
        closeSync(fd);
        return new StoreLock(path, mine);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const current = readHolder(path);
      if (current && isAlive(current.pid)) return { heldBy: current };
      if (current)
        unlinkIfSame(path, current); // stale: its process is gone
      else if (isOlderThan(path, 2000))
        unlinkQuietly(path); // torn: its writer died between create and write
      else sleep(20); // being written this instant
    }
    const current = readHolder(path);
    if (current) return { heldBy: current };
    throw new Error(`could not take the lock ${path}`);
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    process.removeListener('exit', this.onExit);
    unlinkIfSame(this.path, this.holder);
  }
}

function unlinkIfSame(path: string, holder: LockHolder): void {
  const current = readHolder(path);
  if (current && current.pid === holder.pid && current.started_at === holder.started_at) unlinkQuietly(path);
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

function isOlderThan(path: string, ms: number): boolean {
  try {
    return Date.now() - statSync(path).mtimeMs > ms;
  } catch {
    return false;
  }
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
