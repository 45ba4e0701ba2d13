// A JSON Lines file written in large synchronous chunks, counting its rows and bytes and hashing it with SHA-256 as it goes.

import { createHash, type Hash } from 'node:crypto';
import { closeSync, openSync, writeSync } from 'node:fs';

const CHUNK = 1 << 20;

export interface FileSummary {
  rows: number;
  bytes: number;
  sha256: string;
}

export class JsonlFile {
  private readonly fd: number;
  private readonly hash: Hash = createHash('sha256');
  private pending = '';
  private rows = 0;
  private bytes = 0;

  constructor(readonly path: string) {
    this.fd = openSync(path, 'w');
  }

  write(line: string): void {
    this.pending += `${line}\n`;
    this.rows += 1;
    if (this.pending.length >= CHUNK) this.flush();
  }

  /** Appends lines already encoded, each ending in a newline. */
  writeEncoded(data: Uint8Array, rows: number): void {
    this.flush();
    this.hash.update(data);
    for (let offset = 0; offset < data.length;) offset += writeSync(this.fd, data, offset);
    this.bytes += data.length;
    this.rows += rows;
  }

  get written(): number {
    return this.bytes + this.pending.length;
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    const buffer = Buffer.from(this.pending, 'utf8');
    this.pending = '';
    this.hash.update(buffer);
    for (let offset = 0; offset < buffer.length;) offset += writeSync(this.fd, buffer, offset);
    this.bytes += buffer.length;
  }

  close(): FileSummary {
    this.flush();
    closeSync(this.fd);
    return { rows: this.rows, bytes: this.bytes, sha256: this.hash.digest('hex') };
  }
}

/** Writes a small JSON document with two-space indentation and a final newline. */
export function jsonDocument(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
