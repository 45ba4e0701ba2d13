// Notices new publications: polls the LATEST pointer and switches the server to the catalog it names and
// to the registry release that catalog was published with (its manifest names it), both in the same
// instant, so a request never reads a catalog with another publication's registry. A snapshot that
// fails to open is logged and retried; the server keeps answering from the old one.

import type { Logger } from 'pino';
import { latestPointer, readCatalogManifest, readPointer, releaseDir, snapshotDir } from './layout.js';
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

  constructor(
    private readonly snapshotsDir: string,
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

  /** One look at the pointers; concurrent calls share the same look. */
  check(): Promise<void> {
    this.checking ??= this.look().finally(() => (this.checking = undefined));
    return this.checking;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async look(): Promise<void> {
    try {
      const watermark = await readPointer(latestPointer(this.snapshotsDir));
      if (!watermark) return;
      const dir = snapshotDir(this.snapshotsDir, watermark);
      const releaseId = (await readCatalogManifest(dir)).registry_release;
      const release = releaseId && releaseId !== this.publications.registry?.releaseId ? await this.openRelease(releaseDir(this.snapshotsDir, releaseId), releaseId) : undefined;
      let snapshot: CatalogSnapshot | undefined;
      try {
        if (watermark !== this.publications.catalog?.watermark) snapshot = await this.openSnapshot(dir, watermark);
      } catch (error) {
        await release?.close();
        throw error;
      }
      if (release) this.publications.switchRegistry(release);
      if (snapshot) this.publications.switchCatalog(snapshot);
      if (release) this.logger.info({ release_id: releaseId }, 'serving company registry release');
      if (snapshot) this.logger.info({ watermark }, 'serving catalog snapshot');
    } catch (error) {
      this.logger.error({ err: error }, 'could not open the latest publication; still serving the previous one');
    }
  }
}
