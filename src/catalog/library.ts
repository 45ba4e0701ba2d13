// Any kept catalog publication, opened on demand: an export reads the snapshot it was created on to
// its end, on whichever server runs it, even after newer publications (publications are never
// deleted while the feed reaches back to them). The served snapshot is leased as it is; an older one is
// fetched into this node's copy of the store, opened, and closed once its last reader is done.

import type { Lease, Publications, CatalogSnapshot } from './publications.js';
import { Pinned } from './publications.js';
import type { SnapshotOpener } from './watcher.js';
import type { PublicationMirror } from './mirror.js';

export class SnapshotLibrary {
  private readonly older = new Map<string, { slot: Promise<Pinned<CatalogSnapshot>>; readers: number }>();

  constructor(
    private readonly publications: Publications,
    private readonly mirror: PublicationMirror,
    private readonly open: SnapshotOpener,
  ) {}

  /** The snapshot of `watermark`, pinned until release(); null when no such publication is kept. */
  async lease(watermark: string): Promise<Lease<CatalogSnapshot> | null> {
    if (this.publications.catalog?.watermark === watermark) return this.publications.leaseCatalog();
    let entry = this.older.get(watermark);
    if (!entry) {
      const slot = (async () => {
        const dir = await this.mirror.fetchCatalog(watermark);
        if (!dir) throw new NotKept();
        return new Pinned(await this.open(dir, watermark));
      })();
      entry = { slot, readers: 0 };
      this.older.set(watermark, entry);
    }
    entry.readers++;
    let pinned: Pinned<CatalogSnapshot>;
    try {
      pinned = await entry.slot;
    } catch (error) {
      this.done(watermark, entry);
      if (error instanceof NotKept) return null;
      throw error;
    }
    const release = pinned.lease();
    let released = false;
    return {
      value: pinned.value,
      release: () => {
        if (released) return;
        released = true;
        release();
        this.done(watermark, entry);
      },
    };
  }

  /** One reader fewer: the last one retires the snapshot, which closes once its leases have ended. */
  private done(watermark: string, entry: { slot: Promise<Pinned<CatalogSnapshot>>; readers: number }): void {
    if (--entry.readers > 0) return;
    if (this.older.get(watermark) === entry) this.older.delete(watermark);
    void entry.slot.then(
      (pinned) => pinned.retire(),
      () => undefined,
    );
  }

  /** Shutdown: closes the older snapshots still open. */
  async closeNow(): Promise<void> {
    const entries = [...this.older.values()];
    this.older.clear();
    for (const entry of entries)
      await entry.slot.then(
        (pinned) => pinned.value.close(),
        () => undefined,
      );
  }
}

class NotKept extends Error {}
