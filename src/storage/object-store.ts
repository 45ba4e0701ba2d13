// Where everything a second node needs is kept (DESIGN.md 7, docs/deployment.md): publications, the
// publisher's state, export files, ledger segments, MCP saved files. One interface, two stores: an
// S3-compatible bucket (`--object-store s3://bucket/prefix`, s3-store.ts), or a local folder when none is
// named (here), so that one node runs with nothing else. Keys are relative paths with "/" (`catalog/<watermark>/...`).
// An object is written whole or not at all, and readers never see part of one.

import { createReadStream } from 'node:fs';
import { copyFile, mkdir, readFile, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { randomBytes } from 'node:crypto';
import { fsyncPath, writeAtomically } from '../catalog/files.js';
import { parseS3Url } from './s3-url.js';

export { parseS3Url };

export interface StoredObject {
  key: string;
  size: number;
}

/** Bytes `start` to `end` of an object, both inclusive (an HTTP Range). */
export interface ByteRange {
  start: number;
  end: number;
}

export interface ObjectStore {
  /** Where it is, for logs and errors: `s3://bucket/prefix` or a folder. */
  readonly location: string;
  /** The folder holding the objects when the store is a local folder (read in place), else null. */
  readonly folder: string | null;
  /** The object's bytes, or null when there is none. */
  get(key: string): Promise<Buffer | null>;
  put(key: string, body: string | Buffer): Promise<void>;
  /** Stores the file at `path` as `key` (a large file goes up in parts). */
  putFile(key: string, path: string): Promise<void>;
  /** Copies the object to the file `path` (through a temporary beside it); false when there is none. */
  getFile(key: string, path: string): Promise<boolean>;
  /** The object's size, or null when there is none. */
  size(key: string): Promise<number | null>;
  /** A stream of the object (or of `range` of it), or null when there is none. */
  read(key: string, range?: ByteRange): Promise<Readable | null>;
  /** Every object whose key starts with `prefix`, in key order. */
  list(prefix: string): Promise<StoredObject[]>;
  /** Deletes the objects; one already gone is no error. */
  delete(keys: string[]): Promise<void>;
}

/** Temporaries of the folder store end with this, then the writer's pid and a random tag. */
const TEMPORARY = /\.tmp-\d+(?:-x?[0-9a-f]+)?$/;

/** A local folder as an object store: a key is a file under it. */
export class FolderStore implements ObjectStore {
  readonly location: string;

  constructor(readonly folder: string) {
    this.location = folder;
  }

  private path(key: string): string {
    return join(this.folder, ...key.split('/'));
  }

  async get(key: string): Promise<Buffer | null> {
    return readFile(this.path(key)).catch(absent);
  }

  async put(key: string, body: string | Buffer): Promise<void> {
    await writeAtomically(this.path(key), body);
  }

  async putFile(key: string, path: string): Promise<void> {
    const target = this.path(key);
    if (target === path) return;
    await mkdir(dirname(target), { recursive: true });
    const temporary = `${target}.tmp-${process.pid}-x${randomBytes(4).toString('hex')}`;
    await copyFile(path, temporary);
    await fsyncPath(temporary);
    await rename(temporary, target);
  }

  async getFile(key: string, path: string): Promise<boolean> {
    const source = this.path(key);
    if (source === path)
      return stat(path).then(
        () => true,
        () => false,
      );
    await mkdir(dirname(path), { recursive: true });
    const temporary = `${path}.tmp-${process.pid}-x${randomBytes(4).toString('hex')}`;
    try {
      await copyFile(source, temporary);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
    await rename(temporary, path);
    return true;
  }

  async size(key: string): Promise<number | null> {
    return stat(this.path(key)).then((s) => (s.isFile() ? s.size : null), absent);
  }

  async read(key: string, range?: ByteRange): Promise<Readable | null> {
    const path = this.path(key);
    if ((await this.size(key)) === null) return null;
    return createReadStream(path, range ? { start: range.start, end: range.end } : {});
  }

  async list(prefix: string): Promise<StoredObject[]> {
    // The folder the prefix ends in (or is), then only keys that start with the prefix.
    const base = prefix.includes('/') ? prefix.slice(0, prefix.lastIndexOf('/')) : '';
    const found: StoredObject[] = [];
    const walk = async (folder: string): Promise<void> => {
      const entries = await readdir(folder, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return [];
        throw error;
      });
      for (const entry of entries) {
        const path = join(folder, entry.name);
        const key = relative(this.folder, path).split(sep).join('/');
        if (entry.isDirectory()) {
          if (`${key}/`.startsWith(prefix) || prefix.startsWith(`${key}/`)) await walk(path);
        } else if (entry.isFile() && key.startsWith(prefix) && !TEMPORARY.test(entry.name)) {
          found.push({ key, size: (await stat(path)).size });
        }
      }
    };
    await walk(base === '' ? this.folder : this.path(base));
    return found.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  async delete(keys: string[]): Promise<void> {
    for (const key of keys) await rm(this.path(key), { force: true });
  }
}

function absent(error: NodeJS.ErrnoException): null {
  if (error.code === 'ENOENT' || error.code === 'EISDIR' || error.code === 'ENOTDIR') return null;
  throw error;
}
