// The catalog snapshot and the company registry release the server currently answers from.

import { ApiError } from '../errors.js';

export interface CatalogSnapshot {
  watermark: string;
}

export interface RegistryRelease {
  releaseId: string;
}

export class Publications {
  catalog: CatalogSnapshot | null = null;
  registry: RegistryRelease | null = null;

  /** The latest published catalog, or 503 catalog_unavailable while none is published. */
  requireCatalog(): CatalogSnapshot {
    if (!this.catalog) throw new ApiError('catalog_unavailable');
    return this.catalog;
  }

  /** The active registry release, or 503 registry_unavailable while none is active. */
  requireRegistry(): RegistryRelease {
    if (!this.registry) throw new ApiError('registry_unavailable');
    return this.registry;
  }
}
