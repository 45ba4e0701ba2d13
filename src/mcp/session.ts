// An MCP session: its confirmation level and the job files it saved (save_to_file), read back by read_file.

import { randomUUID } from 'node:crypto';
import { open, mkdir, readdir, rm, rename, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { isAlive } from '../db/store-lock.js';
import { ApiError } from '../errors.js';

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

interface FileEntry extends SavedFile {
  path: string;
  /** Byte offset of each job's line, and the end of the file. */
  offsets: number[];
}

/** A file being written: lines appended, then kept (published to the session) or dropped. */
export interface FileWriter {
  append(lines: string[]): Promise<void>;
  keep(): Promise<SavedFile>;
  drop(): Promise<void>;
}

export class McpSession {
  /** Spending tools answer with their cost first when the level asks for it (set_confirmation_level). */
  level: ConfirmationLevel = 'paid_only';
  private readonly files = new Map<string, FileEntry>();
  lastUsed = Date.now();

  constructor(
    readonly id: string,
    private readonly dir: string,
    private readonly clock: () => Date,
  ) {}

  /** Starts a file of jobs, written as JSON Lines; it is listed only once kept. */
  async createFile(watermark: string): Promise<FileWriter> {
    await mkdir(this.dir, { recursive: true });
    const fileId = `file_${randomUUID()}`;
    const path = join(this.dir, `${fileId}.jsonl`);
    const partial = `${path}.partial`;
    const handle = await open(partial, 'w');
    const offsets = [0];
    return {
      append: async (lines) => {
        if (lines.length === 0) return;
        for (const line of lines) offsets.push(offsets[offsets.length - 1]! + Buffer.byteLength(line) + 1);
        await handle.write(`${lines.join('\n')}\n`);
      },
      keep: async () => {
        await handle.close();
        await rename(partial, path);
        const entry: FileEntry = { file_id: fileId, jobs: offsets.length - 1, snapshot_watermark: watermark, created_at: this.clock().toISOString(), path, offsets };
        this.files.set(fileId, entry);
        await this.evict();
        return publicPart(entry);
      },
      drop: async () => {
        await handle.close();
        await rm(partial, { force: true });
      },
    };
  }

  /** Jobs `offset` to `offset + limit` of a file, as their JSON lines. */
  async read(fileId: string, offset: number, limit: number): Promise<{ file: SavedFile; lines: string[] }> {
    const entry = this.files.get(fileId);
    if (!entry) throw new ApiError('file_not_found', `No file ${fileId} in this session: files belong to the session that saved them, which keeps its ${FILES_PER_SESSION} newest.`);
    const last = Math.min(entry.jobs, offset + limit);
    if (offset >= last) return { file: publicPart(entry), lines: [] };
    const start = entry.offsets[offset]!;
    const bytes = Buffer.alloc(entry.offsets[last]! - start);
    let handle: FileHandle | undefined;
    try {
      handle = await open(entry.path, 'r');
      await handle.read(bytes, 0, bytes.length, start);
    } finally {
      await handle?.close();
    }
    return { file: publicPart(entry), lines: bytes.toString('utf8').split('\n').slice(0, last - offset) };
  }

  /** Deletes the session's files. */
  async close(): Promise<void> {
    this.files.clear();
    await rm(this.dir, { recursive: true, force: true });
  }

  private async evict(): Promise<void> {
    while (this.files.size > FILES_PER_SESSION) {
      const [oldest] = this.files.values();
      this.files.delete(oldest!.file_id);
      await rm(oldest!.path, { force: true });
    }
  }
}

const publicPart = ({ file_id, jobs, snapshot_watermark, created_at }: FileEntry): SavedFile => ({ file_id, jobs, snapshot_watermark, created_at });

/** Sessions live in this process's memory: their files go in a folder of this process, under the data folder. */
export function sessionsFolder(dataDir: string, transport: 'http' | 'stdio'): string {
  return join(dataDir, 'mcp-sessions', `${process.pid}-${transport}-${randomUUID().slice(0, 8)}`);
}

/** Deletes the session folders of processes no longer running (a crash leaves them behind). */
export async function removeOrphanSessions(dataDir: string): Promise<void> {
  const root = join(dataDir, 'mcp-sessions');
  const names = await readdir(root).catch(() => [] as string[]);
  for (const name of names) {
    const pid = Number(name.split('-')[0]);
    if (Number.isInteger(pid) && pid !== process.pid && !isAlive(pid)) await rm(join(root, name), { recursive: true, force: true });
  }
}
