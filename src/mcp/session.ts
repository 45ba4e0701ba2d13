// What an MCP session is to the tools: its confirmation level and the job files it saved (save_to_file),
// read back by read_file. Over HTTP it lives in the state store and the object store (stored-session.ts),
// so any replica continues it; over stdio, in the memory of the process (local-session.ts).

import { randomUUID } from 'node:crypto';
import { mkdir, open, readdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { isAlive } from '../db/store-lock.js';
import { ApiError } from '../errors.js';
import { jsonLines } from '../jobs/json-bytes.js';

export const CONFIRMATION_LEVELS = ['always', 'paid_only', 'never'] as const;
export type ConfirmationLevel = (typeof CONFIRMATION_LEVELS)[number];

/** A session keeps its newest files; saving one more deletes the oldest. */
export const FILES_PER_SESSION = 10;

export interface SavedFile {
  file_id: string;
  jobs: number;
  snapshot_watermark: string;
  created_at: string;
}

/** A file being written: lines appended, then kept (published to the session) or dropped. */
export interface FileWriter {
  append(lines: Buffer[]): Promise<void>;
  keep(): Promise<SavedFile>;
  drop(): Promise<void>;
}

export interface McpSession {
  /** Spending tools answer with their cost first when the level asks for it. */
  readonly level: ConfirmationLevel;
  setLevel(level: ConfirmationLevel): Promise<void>;
  /** Starts a file of jobs, written as JSON Lines; it is listed only once kept. */
  createFile(watermark: string): Promise<FileWriter>;
  /** Jobs `offset` to `offset + limit` of a file, as their JSON lines. */
  read(fileId: string, offset: number, limit: number): Promise<{ file: SavedFile; lines: string[] }>;
}

export const newFileId = (): string => `file_${randomUUID()}`;

export function fileNotFound(fileId: string): ApiError {
  return new ApiError(
    'file_not_found',
    `No file ${fileId} in this session: files belong to the session that saved them, which keeps its ${FILES_PER_SESSION} newest.`,
  );
}

/** A JSON Lines file being written on local disk, with the byte offset of each line. */
export interface JsonLinesFile {
  readonly path: string;
  append(lines: Buffer[]): Promise<void>;
  /** Closes the file: the offset of each line, then the file's size. */
  finish(): Promise<number[]>;
  /** Closes and deletes it. */
  drop(): Promise<void>;
}

export async function writeJsonLines(path: string): Promise<JsonLinesFile> {
  await mkdir(dirname(path), { recursive: true });
  const handle = await open(path, 'w');
  const offsets = [0];
  let closed = false;
  // A kept file that failed to publish is then dropped: the handle closes once.
  const close = async () => {
    if (!closed) await handle.close();
    closed = true;
  };
  return {
    path,
    append: async (lines) => {
      if (lines.length === 0) return;
      for (const line of lines) offsets.push(offsets[offsets.length - 1]! + line.length + 1);
      await handle.write(jsonLines(lines));
    },
    finish: async () => {
      await close();
      return offsets;
    },
    drop: async () => {
      await close();
      await rm(path, { force: true });
    },
  };
}

/** A folder of this process under `root`, for the files it writes; one a dead process left is removed by the next. */
export function processFolder(root: string): string {
  return join(root, `${process.pid}-${randomUUID().slice(0, 8)}`);
}

/** Deletes the folders under `root` of processes no longer running (a crash leaves them behind). */
export async function removeDeadProcessFolders(root: string): Promise<void> {
  const names = await readdir(root).catch(() => [] as string[]);
  for (const name of names) {
    const pid = Number(name.split('-')[0]);
    if (Number.isInteger(pid) && pid !== process.pid && !isAlive(pid)) await rm(join(root, name), { recursive: true, force: true });
  }
}
