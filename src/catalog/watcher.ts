// Notices new publications: polls the LATEST pointer of the object store (or of the snapshots folder,
// on a single node), copies what the new publication needs to this node, and switches the server to the catalog it names and
// to the registry release that catalog was published with (its manifest names it), both in the same
// instant, so a request never reads a catalog with another publication's registry. A snapshot that
// fails to open is logged and retried; the server keeps answering from the old one.

import type { Logger } from 'pino';
import { readCatalogManifest } from './layout.js';
import type { PublicationMirror } from './mirror.js';
import type { CatalogSnapshot, Publications, RegistryRelease } from './publications.js';

export type SnapshotOpener = (dir: string, watermark: string) => Promise<CatalogSnapshot>;
export type ReleaseOpener = (dir: string, releaseId: string) => Promise<RegistryRelease>;

/** Opens a snapshot: its manifest. (Query structures are opened by the read API.) */
export const openSnapshotFiles: SnapshotOpener = async (dir, watermark) => ({
  watermark,
  dir,
  manifest: await readCatalogManifest(dir),
  close: () => undefined,
});

export const openReleaseFiles: ReleaseOpener = (dir, releaseId) => Promise.resolve({ releaseId, dir, close: () => undefined });

export class PublicationWatcher {
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly mirror: PublicationMirror,
    private readonly publications: Publications,
    private readonly logger: Logger,
    private readonly openSnapshot: SnapshotOpener = openSnapshotFiles,
    private readonly openRelease: ReleaseOpener = openReleaseFiles,
  ) {}

  /** Loads what is published now, then keeps checking every `intervalMs`. */
  async start(intervalMs: number): Promise<void> {
    await this.check();
    this.timer = setInterval(() => void this.check(), intervalMs);
    this.timer.unref();
  }

  /** One look at the pointers; concurrent calls share the same look. None once closed. */
  check(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.checking ??= this.look().finally(() => (this.checking = undefined));
    return this.checking;
  }

  /** Stops checking every interval; check() still looks when called. */
  stop(): void {
    clearInterval(this.timer);
  }

  /**
   * Stops checking for good, and resolves once a look under way has ended: a publication it was opening
   * is then closed, not served, so nothing of it is written or held after the server's stores close.
   */
  async close(): Promise<void> {
    this.closed = true;
    this.stop();
    await this.checking;
  }

  private async look(): Promise<void> {
    try {
      const watermark = await this.mirror.latest();
      if (!watermark || watermark === this.publications.catalog?.watermark) return;
      const dir = await this.mirror.fetchCatalog(watermark);
      if (!dir) throw new Error(`catalog/LATEST names ${watermark}, and ${this.mirror.store.location} holds no such publication`);
      const manifest = await readCatalogManifest(dir);
      // The change feed reaches back through the earlier publications: their events are copied too.
      for (let previous = manifest.previous_watermark; previous !== null && (await this.mirror.fetchFeed(previous));) {
        previous = (await this.mirror.manifest(previous)).previous_watermark;
      }
      const releaseId = manifest.registry_release;
      const releaseFolder =
        releaseId && releaseId !== this.publications.registry?.releaseId ? await this.mirror.fetchRelease(releaseId) : null;
      if (releaseId && releaseId !== this.publications.registry?.releaseId && !releaseFolder)
        throw new Error(`publication ${watermark} uses registry release ${releaseId}, and ${this.mirror.store.location} holds none`);
      const release = releaseFolder ? await this.openRelease(releaseFolder, releaseId!) : undefined;
      let snapshot: CatalogSnapshot;
      try {
        snapshot = await this.openSnapshot(dir, watermark);
      } catch (error) {
        await release?.close();
        throw error;
      }
      if (this.closed) {
        await snapshot.close();
        await release?.close();
        return;
      }
      if (release) this.publications.switchRegistry(release);
      this.publications.switchCatalog(snapshot);
      if (release) this.logger.info({ release_id: releaseId }, 'serving company registry release');
      this.logger.info({ watermark }, 'serving catalog snapshot');
      await this.mirror.trim(watermark);
    } catch (error) {
      this.logger.error({ err: error }, 'could not open the latest publication; still serving the previous one');
    }
  }
}
