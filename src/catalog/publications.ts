// The catalog snapshot and the company registry release the server currently answers from.
// A request pins what it reads with a lease; a replaced snapshot closes once its last lease ends,
// so switching to a new publication never disturbs a request in flight.

import { ApiError } from '../errors.js';
import type { CatalogManifest } from './layout.js';

/** Something opened per publication that must be closed when nobody uses it any more. */
export interface Opened {
  close(): Promise<void> | void;
}

/** A publication and the requests reading it: it closes once retired and its last lease has ended. */
export class Pinned<T extends Opened> {
  private leases = 0;
  private retired = false;

  constructor(readonly value: T) {}

  lease(): () => void {
    this.leases++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.leases--;
      if (this.retired && this.leases === 0) void this.value.close();
    };
  }

  retire(): void {
    this.retired = true;
    if (this.leases === 0) void this.value.close();
  }
}

export interface CatalogSnapshot extends Opened {
  watermark: string;
  dir: string;
  manifest: CatalogManifest;
}

export interface RegistryRelease extends Opened {
  releaseId: string;
  dir: string;
}

export interface Lease<T> {
  value: T;
  release(): void;
}

export class Publications {
  private catalogSlot: Pinned<CatalogSnapshot> | null = null;
  private registrySlot: Pinned<RegistryRelease> | null = null;

  get catalog(): CatalogSnapshot | null {
    return this.catalogSlot?.value ?? null;
  }

  get registry(): RegistryRelease | null {
    return this.registrySlot?.value ?? null;
  }

  /** Makes `snapshot` the one new requests read; the replaced one closes after its last lease. */
  switchCatalog(snapshot: CatalogSnapshot): void {
    const old = this.catalogSlot;
    this.catalogSlot = new Pinned(snapshot);
    old?.retire();
  }

  switchRegistry(release: RegistryRelease): void {
    const old = this.registrySlot;
    this.registrySlot = new Pinned(release);
    old?.retire();
  }

  /** The latest published catalog, pinned until release(); 503 catalog_unavailable while none is published. */
  leaseCatalog(): Lease<CatalogSnapshot> {
    const slot = this.catalogSlot;
    if (!slot) throw new ApiError('catalog_unavailable');
    return { value: slot.value, release: slot.lease() };
  }

  /** Runs `work` on the latest catalog (503 catalog_unavailable while none), pinned until it ends. */
  async onCatalog<T>(work: (catalog: CatalogSnapshot) => Promise<T>): Promise<T> {
    const lease = this.leaseCatalog();
    try {
      return await work(lease.value);
    } finally {
      lease.release();
    }
  }

  /** The active registry release, pinned until release(); 503 registry_unavailable while none is active. */
  leaseRegistry(): Lease<RegistryRelease> {
    const slot = this.registrySlot;
    if (!slot) throw new ApiError('registry_unavailable');
    return { value: slot.value, release: slot.lease() };
  }

  /** Shutdown, after the requests have drained: closes everything now. */
  async closeNow(): Promise<void> {
    const slots = [this.catalogSlot, this.registrySlot];
    this.catalogSlot = null;
    this.registrySlot = null;
    for (const slot of slots) await slot?.value.close();
  }

  /** Retires everything: each closes once its leases end. */
  close(): void {
    this.catalogSlot?.retire();
    this.registrySlot?.retire();
    this.catalogSlot = null;
    this.registrySlot = null;
  }
}
