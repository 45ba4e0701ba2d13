// An MCP session over HTTP as every replica sees it: its row in the state store (bound key, confirmation
// level) and its saved files, objects mcp/<session_id>/<file_id>.jsonl of the data store whose line
// offsets are kept in the store, so a page of a file is one ranged read from whichever replica.

import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { namedQueries } from '../db/sql-files.js';
import type { StateStore } from '../db/state-store.js';
import { ApiError } from '../errors.js';
import type { ObjectStore } from '../storage/object-store.js';
import {
  FILES_PER_SESSION,
  fileNotFound,
  newFileId,
  writeJsonLines,
  type ConfirmationLevel,
  type FileWriter,
  type McpSession,
  type SavedFile,
} from './session.js';

const SQL = namedQueries('state/mcp.sql', ['set_level', 'add_file', 'drop_file', 'evict_files', 'file_range']);

/** Where stored sessions keep what they keep. */
export interface SessionStorage {
  store: StateStore;
  /** The data store: the files' objects. */
  objects: ObjectStore;
  /** This process's folder for files being written, before they go up. */
  scratch: string;
  clock: () => Date;
}

/** The objects of a session start with this. */
export const sessionPrefix = (sessionId: string): string => `mcp/${sessionId}/`;
const fileKey = (sessionId: string, fileId: string): string => `${sessionPrefix(sessionId)}${fileId}.jsonl`;

interface RangeRow {
  jobs: number;
  snapshot_watermark: string;
  created_at: Date;
  start_byte: number | null;
  end_byte: number | null;
}

export class StoredSession implements McpSession {
  constructor(
    readonly id: string,
    public level: ConfirmationLevel,
    private readonly storage: SessionStorage,
  ) {}

  async setLevel(level: ConfirmationLevel): Promise<void> {
    await this.storage.store.query(SQL.set_level, [this.id, level]);
    this.level = level;
  }

  async createFile(watermark: string): Promise<FileWriter> {
    const fileId = newFileId();
    const file = await writeJsonLines(join(this.storage.scratch, `${fileId}.jsonl`));
    return {
      append: (lines) => file.append(lines),
      keep: async () => {
        const offsets = await file.finish();
        try {
          return await this.publish(fileId, file.path, watermark, offsets);
        } finally {
          await rm(file.path, { force: true });
        }
      },
      drop: () => file.drop(),
    };
  }

  /**
   * Its row first, then its object: an object without a row is then always an orphan, which the sweep
   * of the registry deletes (the file id is not known to the client before this returns).
   */
  private async publish(fileId: string, path: string, watermark: string, offsets: number[]): Promise<SavedFile> {
    const { store, objects } = this.storage;
    const saved: SavedFile = {
      file_id: fileId,
      jobs: offsets.length - 1,
      snapshot_watermark: watermark,
      created_at: this.storage.clock().toISOString(),
    };
    const added = await store.query(SQL.add_file, [this.id, fileId, saved.jobs, watermark, saved.created_at, offsets]);
    if (added.length === 0)
      throw new ApiError('file_not_found', 'This MCP session ended while the file was being saved; initialize a new session.');
    try {
      await objects.putFile(fileKey(this.id, fileId), path);
    } catch (error) {
      await store.query(SQL.drop_file, [this.id, fileId]);
      throw error;
    }
    const evicted = await store.query<{ file_id: string }>(SQL.evict_files, [this.id, FILES_PER_SESSION]);
    await objects.delete(evicted.map((row) => fileKey(this.id, row.file_id)));
    return saved;
  }

  async read(fileId: string, offset: number, limit: number): Promise<{ file: SavedFile; lines: string[] }> {
    const [row] = await this.storage.store.query<RangeRow>(SQL.file_range, [this.id, fileId, offset, offset + limit]);
    if (!row) throw fileNotFound(fileId);
    const file: SavedFile = {
      file_id: fileId,
      jobs: row.jobs,
      snapshot_watermark: row.snapshot_watermark,
      created_at: new Date(row.created_at).toISOString(),
    };
    const count = Math.min(row.jobs, offset + limit) - offset;
    if (count <= 0 || row.start_byte === null || row.end_byte === null) return { file, lines: [] };
    const stream = await this.storage.objects.read(fileKey(this.id, fileId), { start: row.start_byte, end: row.end_byte - 1 });
    // Evicted by a save on another replica between the two reads.
    if (!stream) throw fileNotFound(fileId);
    return { file, lines: (await buffer(stream)).toString('utf8').split('\n').slice(0, count) };
  }
}
