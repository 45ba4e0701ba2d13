// Durable file operations for publications: fsync'd writes and atomic replacement by rename.

import { open, rename, rm, stat, writeFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';

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
export async function writeAtomically(path: string, text: string): Promise<void> {
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
