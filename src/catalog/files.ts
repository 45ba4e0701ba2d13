// Durable file operations for publications: fsync'd writes and atomic replacement by rename.

import { open, readdir, rename, rm, stat, writeFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { isAlive } from '../db/store-lock.js';

/** True when something exists at `path`. */
export async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

export async function fsyncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Writes `text` to `path` so that readers see either the old content or the whole new one. */
export async function writeAtomically(path: string, text: string | Buffer): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.tmp-${process.pid}`;
  await writeFile(temporary, text);
  await fsyncPath(temporary);
  await rename(temporary, path);
  await fsyncPath(dirname(path));
}

/** Moves a fully written folder into place, replacing what was there (never the published one). */
export async function moveIntoPlace(from: string, to: string): Promise<void> {
  await rm(to, { recursive: true, force: true });
  await rename(from, to);
  await fsyncPath(dirname(to));
}

/**
 * A temporary's name carries its writer's pid: `x.tmp-<pid>`, `.tmp-<name>-<pid>`, `.work-<pid>`, or
 * `x.tmp-<pid>-x<tag>` (the object store's copies).
 */
const TEMPORARY = /(?:^\.work-|\.tmp-(?:.*-)?)(\d+)(?:-x[0-9a-f]+)?$/;

/**
 * Removes the temporaries in `dir` (files or folders) whose writer is no longer running: what a run
 * killed mid-write left. Whoever finds them removes them; a live writer's are left alone.
 */
export async function removeDeadTemporaries(dir: string): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const pid = TEMPORARY.exec(name)?.[1];
    if (pid === undefined || isAlive(Number(pid))) continue;
    await rm(join(dir, name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}
