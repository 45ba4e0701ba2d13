// The session of `mcp` over stdio: the process is the session, so its level and the list of its files
// live in memory, and the files in a folder of the process under the data folder, deleted when it ends.

import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import {
  FILES_PER_SESSION,
  fileNotFound,
  newFileId,
  processFolder,
  removeDeadProcessFolders,
  writeJsonLines,
  type ConfirmationLevel,
  type FileWriter,
  type McpSession,
  type SavedFile,
} from './session.js';

interface FileEntry extends SavedFile {
  path: string;
  /** Byte offset of each job's line, and the end of the file. */
  offsets: number[];
}

export class LocalSession implements McpSession {
  level: ConfirmationLevel = 'paid_only';
  private readonly files = new Map<string, FileEntry>();

  private constructor(
    private readonly dir: string,
    private readonly clock: () => Date,
  ) {}

  /** A session with its folder under data/mcp-sessions/, after removing those of processes that died. */
  static async open(dataDir: string, clock: () => Date): Promise<LocalSession> {
    const root = join(dataDir, 'mcp-sessions');
    await removeDeadProcessFolders(root);
    return new LocalSession(processFolder(root), clock);
  }

  setLevel(level: ConfirmationLevel): Promise<void> {
    this.level = level;
    return Promise.resolve();
  }

  async createFile(watermark: string): Promise<FileWriter> {
    const fileId = newFileId();
    const path = join(this.dir, `${fileId}.jsonl`);
    const file = await writeJsonLines(`${path}.partial`);
    return {
      append: (lines) => file.append(lines),
      keep: async () => {
        const offsets = await file.finish();
        await rename(file.path, path);
        const entry: FileEntry = {
          file_id: fileId,
          jobs: offsets.length - 1,
          snapshot_watermark: watermark,
          created_at: this.clock().toISOString(),
          path,
          offsets,
        };
        this.files.set(fileId, entry);
        await this.evict();
        return publicPart(entry);
      },
      drop: () => file.drop(),
    };
  }

  async read(fileId: string, offset: number, limit: number): Promise<{ file: SavedFile; lines: string[] }> {
    const entry = this.files.get(fileId);
    if (!entry) throw fileNotFound(fileId);
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
    return {
      file: publicPart(entry),
      lines: bytes
        .toString('utf8')
        .split('\n')
        .slice(0, last - offset),
    };
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

const publicPart = ({ file_id, jobs, snapshot_watermark, created_at }: FileEntry): SavedFile => ({
  file_id,
  jobs,
  snapshot_watermark,
  created_at,
});
