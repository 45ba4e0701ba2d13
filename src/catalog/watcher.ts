// Notices new publications: polls the LATEST and ACTIVE pointers and switches the server to what they
// name. A snapshot that fails to open is logged and retried; the server keeps answering from the old one.

import type { Logger } from 'pino';
import { activePointer, latestPointer, readCatalogManifest, readPointer, releaseDir, snapshotDir } from './layout.js';
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
      const releaseId = await readPointer(activePointer(this.snapshotsDir));
      if (releaseId && releaseId !== this.publications.registry?.releaseId) {
        this.publications.switchRegistry(await this.openRelease(releaseDir(this.snapshotsDir, releaseId), releaseId));
        this.logger.info({ release_id: releaseId }, 'serving company registry release');
      }
      const watermark = await readPointer(latestPointer(this.snapshotsDir));
      if (watermark && watermark !== this.publications.catalog?.watermark) {
        this.publications.switchCatalog(await this.openSnapshot(snapshotDir(this.snapshotsDir, watermark), watermark));
        this.logger.info({ watermark }, 'serving catalog snapshot');
      }
    } catch (error) {
      this.logger.error({ err: error }, 'could not open the latest publication; still serving the previous one');
    }
  }
}
