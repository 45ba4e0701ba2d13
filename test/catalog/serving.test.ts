import { expect } from 'chai';
import { cp, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { publish } from '../../src/catalog/publish/publish.js';
import { Publications, type CatalogSnapshot } from '../../src/catalog/publications.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { cutoffOf, DEFAULT_DESCRIPTION, writeDay, type TestDay } from '../support/delivery.js';

interface Health {
  catalog: { watermark: string | null };
  registry: { release_id: string | null };
}

describe('serving publications', function () {
  this.timeout(60_000);
  let app: TestApp;

  before(async () => {
    app = await startTestApp({ catalogPollMs: 200 });
  });
  after(() => app.close());

  async function publishDay(day: number, release?: string, spec: Partial<TestDay> = {}, servingFiles = true): Promise<void> {
    const root = join(app.config.dataDir, '..', 'delivery');
    const dir = await writeDay(root, day, {
      postings: [{ source: 'greenhouse', board: 'northwind', id: '1', opening: 'A' }],
      ...(release
        ? {
            registry: {
              release_id: release,
              companies: [{ company_id: '44444444-4444-4444-8444-444444444444', name: 'Northwind Logistics' }],
            },
          }
        : {}),
      ...spec,
    });
    await publish({
      input: dir,
      snapshotsDir: app.config.snapshotsDir,
      dataDir: app.config.dataDir,
      quiet: true,
      memoryLimit: '1GB',
      servingFiles,
    });
  }

  async function healthWithin(ms: number, done: (h: Health) => boolean): Promise<Health> {
    const until = Date.now() + ms;
    for (;;) {
      const health = (await app.api.get<Health>('/healthz')).body;
      if (done(health) || Date.now() > until) return health;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('answers 503 catalog_unavailable before the first publication', async () => {
    const { key } = await app.account();
    const res = await app.api.get<{ error: { code: string } }>('/v1/jobs', { key });
    expect(res.body.error.code).to.equal('catalog_unavailable');
    expect((await app.api.get<Health>('/healthz')).body.catalog.watermark).to.equal(null);
  });

  it('notices a new publication within a few seconds, and then the next one', async () => {
    await publishDay(1, 'r-1');
    const first = await healthWithin(5000, (h) => h.catalog.watermark === cutoffOf(1));
    expect(first.catalog.watermark).to.equal(cutoffOf(1));
    expect(first.registry.release_id).to.equal('r-1');
    await publishDay(2);
    const second = await healthWithin(5000, (h) => h.catalog.watermark === cutoffOf(2));
    expect(second.catalog.watermark).to.equal(cutoffOf(2));
  });

  it('serves the registry release its catalog was published with, whatever the ACTIVE pointer says', async () => {
    // What a publisher killed between the two pointers used to leave: ACTIVE on a newer release while
    // LATEST still names the catalog of the older one. The server follows the catalog's manifest.
    await cp(join(app.config.snapshotsDir, 'registry', 'r-1'), join(app.config.snapshotsDir, 'registry', 'r-9'), { recursive: true });
    await writeFile(join(app.config.snapshotsDir, 'registry', 'ACTIVE'), 'r-9\n');
    await app.service.watcher.check();
    expect((await app.api.get<Health>('/healthz')).body).to.deep.include({
      catalog: { watermark: cutoffOf(2) },
      registry: { release_id: 'r-1' },
    });
    // The next publication names its release, and both move in the same instant.
    await publishDay(3, 'r-3');
    await app.service.watcher.check();
    expect((await app.api.get<Health>('/healthz')).body).to.deep.include({
      catalog: { watermark: cutoffOf(3) },
      registry: { release_id: 'r-3' },
    });
  });

  it('serves a publication made before serving files were built at publish, building them into its cache, and removes what a killed server left there', async () => {
    // This case opens the publication itself once it has shaped it as an older version would have: the
    // server's own poll could open it before that (found failing under load).
    app.service.watcher.stop();
    const folder = join(app.config.dataDir, 'serving', cutoffOf(4));
    await mkdir(folder, { recursive: true });
    const dead = 2 ** 22 + 12345; // above Linux's default pid_max: no process has it
    await writeFile(join(folder, `documents.jsonl.tmp-${dead}`), 'cut short');
    // A live process (this test's parent) writing there: left alone.
    await writeFile(join(folder, `title.index.tmp-${process.ppid}`), 'being written');
    // Its events: two jobs created (their jobs copied from the publication's documents by the
    // publisher) and one withdrawn (its job, gone from the publication, carried in the event).
    await publishDay(4, undefined, {
      postings: ['2', '3'].map((id) => ({
        source: 'greenhouse',
        board: 'northwind',
        id,
        opening: `B${id}`,
        title: `Dispatcher ${id}`,
        employment_type: 'full_time',
        company: null,
      })),
      reads: [{ source: 'greenhouse', board: 'northwind', complete: false }],
      withdrawals: [{ source: 'greenhouse', id: '1' }],
    });
    // As an earlier version published it: no serving files, nothing in the manifest about them.
    const dir = join(app.config.snapshotsDir, 'catalog', cutoffOf(4));
    const published = await readFile(join(dir, 'feed', 'events.jsonl'), 'utf8');
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as Record<string, unknown>;
    delete manifest.serving_files;
    await writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest));
    await rm(join(dir, 'serving'), { recursive: true });
    await rm(join(dir, 'feed'), { recursive: true });
    await app.service.watcher.check();
    expect((await app.api.get<Health>('/healthz')).body.catalog.watermark).to.equal(cutoffOf(4));
    const names = await readdir(folder);
    expect(names).to.include.members(['documents.jsonl', 'title.index', `title.index.tmp-${process.ppid}`]);
    expect(names.filter((n) => n.includes(`.tmp-${dead}`))).to.deep.equal([]);
    // The server serialises every event's job; the publisher wrote the same bytes.
    const built = await readFile(join(app.config.dataDir, 'feed', cutoffOf(4), 'events.jsonl'), 'utf8');
    expect(built.split('\n').map((line) => line && (JSON.parse(line) as { type: string }).type)).to.have.members([
      'created',
      'created',
      'expired',
      '',
    ]);
    expect(published).to.equal(built);
    // The next publication carries its own: nothing of it goes into the cache.
    await publishDay(5);
    await app.service.watcher.check();
    expect((await app.api.get<Health>('/healthz')).body.catalog.watermark).to.equal(cutoffOf(5));
    expect(await readdir(join(app.config.dataDir, 'serving'))).to.not.include(cutoffOf(5));
    expect(await readdir(join(app.config.snapshotsDir, 'catalog', cutoffOf(5), 'serving'))).to.include.members([
      'documents.jsonl',
      'source-data.jsonl',
      'title.index',
      'description.index',
    ]);
    // Only the newest three publications keep their serving files and the versions trends read; every
    // one keeps its feed.
    const catalog = join(app.config.snapshotsDir, 'catalog');
    const older = await readdir(join(catalog, cutoffOf(2)));
    expect(older).to.not.include('serving');
    expect(older).to.not.include('trends');
    expect(await readdir(join(catalog, cutoffOf(3)))).to.include.members(['serving', 'trends', 'feed']);
    expect(await readdir(join(catalog, cutoffOf(2)))).to.include('feed');
  });

  it('serves a publication published without serving files (publish --skip-serving-files), building them into its cache', async () => {
    app.service.watcher.stop();
    const posting = { source: 'greenhouse', board: 'northwind', id: '7', opening: 'C7', title: 'Night Dispatcher', company: null };
    await publishDay(6, undefined, { postings: [posting] }, false);
    const dir = join(app.config.snapshotsDir, 'catalog', cutoffOf(6));
    expect((JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as { serving_files: boolean }).serving_files).to.equal(false);
    expect(await readdir(dir)).to.not.include.members(['serving', 'feed']);
    await app.service.watcher.check();
    expect((await app.api.get<Health>('/healthz')).body.catalog.watermark).to.equal(cutoffOf(6));
    expect(await readdir(join(app.config.dataDir, 'serving', cutoffOf(6)))).to.include.members(['documents.jsonl', 'title.index']);
    expect(await readdir(join(app.config.dataDir, 'feed', cutoffOf(6)))).to.include('events.jsonl');
    const { key } = await app.account();
    const jobs = await app.api.get<{ data: { title: string }[] }>('/v1/jobs?title=night', { key });
    expect(jobs.status).to.equal(200);
    expect(jobs.body.data.map((j) => j.title)).to.deep.equal(['Night Dispatcher']);
  });
});

describe('Publications', () => {
  function snapshot(watermark: string, closed: string[]): CatalogSnapshot {
    return { watermark, dir: '', manifest: {} as CatalogSnapshot['manifest'], close: () => void closed.push(watermark) };
  }

  it('keeps a replaced snapshot open until the last request reading it ends', () => {
    const closed: string[] = [];
    const publications = new Publications();
    publications.switchCatalog(snapshot('w1', closed));
    const inFlight = publications.leaseCatalog();
    publications.switchCatalog(snapshot('w2', closed));
    expect(publications.leaseCatalog().value.watermark).to.equal('w2');
    expect(inFlight.value.watermark).to.equal('w1');
    expect(closed).to.deep.equal([]);
    inFlight.release();
    inFlight.release();
    expect(closed).to.deep.equal(['w1']);
  });

  it('closes a replaced snapshot at once when no request reads it', () => {
    const closed: string[] = [];
    const publications = new Publications();
    publications.switchCatalog(snapshot('w1', closed));
    publications.switchCatalog(snapshot('w2', closed));
    expect(closed).to.deep.equal(['w1']);
  });
});

describe('a server stopped while it opens a publication', function () {
  this.timeout(60_000);

  it('ends the open before its stores close, serves nothing of it, and writes nothing into its cache after', async () => {
    const app = await startTestApp({ catalogPollMs: 3_600_000 });
    try {
      // Without serving files, so that the open builds them into data/serving: 2,000 jobs take it a second.
      const postings = Array.from({ length: 2_000 }, (_, i) => ({
        source: 'greenhouse',
        board: 'northwind',
        id: `${i}`,
        opening: `O${i}`,
        title: `Route Planner ${i}`,
        description: `${DEFAULT_DESCRIPTION} Depot ${i}.`,
      }));
      const dir = await writeDay(join(app.config.dataDir, '..', 'delivery'), 1, { postings });
      await publish({ input: dir, snapshotsDir: app.config.snapshotsDir, dataDir: app.config.dataDir, quiet: true, servingFiles: false });
      const cache = join(app.config.dataDir, 'serving', cutoffOf(1));
      let ended = false;
      const opening = app.service.watcher.check().then(() => (ended = true));
      while (!(await readdir(cache).catch(() => null))) await new Promise((r) => setTimeout(r, 2));
      expect(ended, 'the open ended before the server was stopped').to.equal(false);
      await app.service.close();
      expect(ended).to.equal(true);
      expect(app.service.ctx.publications.catalog).to.equal(null);
      const files = async () => (await readdir(cache, { recursive: true }).catch(() => [])).sort();
      const left = await files();
      await new Promise((r) => setTimeout(r, 1_000));
      expect(await files()).to.deep.equal(left);
      await opening;
    } finally {
      await app.close();
    }
  });
});
