// The MCP sessions over HTTP, shared by every replica through the state store: opened under a key (at
// most SESSIONS_PER_KEY each), found again by id on any replica (for that key only, unless idle too
// long), ended by DELETE on any replica or by the sweep, their objects deleted with them.

import { randomUUID } from 'node:crypto';
import { rm, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { AppContext } from '../context.js';
import { namedQueries } from '../db/sql-files.js';
import { processFolder, removeDeadProcessFolders, type ConfirmationLevel } from './session.js';
import { sessionPrefix, StoredSession, type SessionStorage } from './stored-session.js';

const SQL = namedQueries('state/mcp.sql', ['lock_key', 'open', 'evict_sessions', 'touch', 'end', 'expire', 'known_files']);

/** Sessions one API key may hold at once; opening one more ends its least recently used. */
export const SESSIONS_PER_KEY = 10;

/** A saved file's object: mcp/<session_id>/<file_id>.jsonl. */
const FILE_OBJECT = /^mcp\/[^/]+\/(file_[^/]+)\.jsonl$/;

export class SessionRegistry {
  private readonly storage: SessionStorage;

  constructor(private readonly ctx: AppContext) {
    const root = join(ctx.stores.cacheDir, 'mcp');
    this.storage = { store: ctx.store, objects: ctx.stores.data, scratch: processFolder(root), clock: ctx.clock };
    void removeDeadProcessFolders(root).catch((error: unknown) =>
      ctx.logger.warn({ err: error }, 'mcp: could not remove the files a stopped server was writing'),
    );
  }

  /** A new session of the key, ending its least recently used beyond the limit. */
  async open(keyId: string): Promise<StoredSession> {
    const id = randomUUID();
    const evicted = await this.ctx.store.transaction(async (tx) => {
      await tx.query(SQL.lock_key, [keyId]);
      await tx.query(SQL.open, [id, keyId]);
      return tx.query<{ session_id: string }>(SQL.evict_sessions, [keyId, id, SESSIONS_PER_KEY - 1]);
    });
    await this.deleteObjects(evicted.map((row) => row.session_id));
    return new StoredSession(id, 'paid_only', this.storage);
  }

  /** The session `id` if the key opened it and it is not idle past its time, marked used; else undefined. */
  async find(id: string, keyId: string): Promise<StoredSession | undefined> {
    const [row] = await this.ctx.store.query<{ confirmation_level: ConfirmationLevel }>(SQL.touch, [
      id,
      keyId,
      this.ctx.config.mcpSessionIdleMs,
    ]);
    return row && new StoredSession(id, row.confirmation_level, this.storage);
  }

  async end(id: string): Promise<void> {
    await this.ctx.store.query(SQL.end, [id]);
    await this.deleteObjects([id]);
  }

  /**
   * Ends the sessions idle past their time, and deletes the objects no file row names: those of a
   * session ended while one of its files was going up, or of a replica that died between the two.
   */
  async sweep(): Promise<void> {
    const expired = await this.ctx.store.query<{ session_id: string }>(SQL.expire, [this.ctx.config.mcpSessionIdleMs]);
    await this.deleteObjects(expired.map((row) => row.session_id));
    const objects = (await this.storage.objects.list('mcp/')).flatMap(({ key }) => {
      const fileId = FILE_OBJECT.exec(key)?.[1];
      return fileId ? [{ key, fileId }] : [];
    });
    if (objects.length === 0) return;
    const known = new Set(
      (await this.ctx.store.query<{ file_id: string }>(SQL.known_files, [objects.map((o) => o.fileId)])).map((row) => row.file_id),
    );
    await this.storage.objects.delete(objects.filter((o) => !known.has(o.fileId)).map((o) => o.key));
  }

  /** Removes this process's folder of files being written. */
  async close(): Promise<void> {
    await rm(this.storage.scratch, { recursive: true, force: true });
  }

  /** Deletes the sessions' files; the session rows are gone already, so a store that fails now only delays it to the sweep. */
  private async deleteObjects(sessionIds: string[]): Promise<void> {
    const { objects } = this.storage;
    for (const id of sessionIds) {
      try {
        await objects.delete((await objects.list(sessionPrefix(id))).map((o) => o.key));
      } catch (error) {
        this.ctx.logger.warn({ err: error, session: id }, 'mcp: the files of an ended session could not be deleted yet; the sweep retries');
        continue;
      }
      // A local folder keeps the session's emptied folder; an object store has no folders.
      if (objects.folder !== null) await rmdir(join(objects.folder, 'mcp', id)).catch(() => undefined);
    }
  }
}
