import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { publish } from '../../src/catalog/publish/publish.js';
import { readCatalogManifest, snapshotDir, type CatalogManifest } from '../../src/catalog/layout.js';
import { startTestApp, tempDir } from '../support/app.js';
import { cliEntry, runCli } from '../support/cli.js';
import { cutoffOf, writeDay, type TestPosting } from '../support/delivery.js';
import { startS3, useS3Environment, type TestS3 } from '../support/s3.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function postings(day: number): TestPosting[] {
  return Array.from({ length: 300 }, (_, i) => ({
    source: i % 3 === 0 ? 'indeed' : 'greenhouse',
    board: `employer-${i % 30}`,
    id: `${i}-${day > 1 && i % 7 === 0 ? 'r' : ''}`,
    opening: `o${i}`,
    employer: `Employer ${i % 30}`,
    title: `Role ${i} day ${i % 5 === 0 ? day : 1}`,
    description: `Employer ${i % 30} hires for role ${i}. The role ${i} works on project ${i * 7}.`,
  }));
}

/** A node of its own: empty snapshots and data folders. */
function node(root: string, name: string) {
  return { snapshotsDir: join(root, name, 'snapshots'), dataDir: join(root, name, 'data') };
}

/** Runs `publish` against the object store and SIGKILLs it as it announces `stage`. */
function publishKilledAt(input: string, args: string[], env: Record<string, string>, stage: string): Promise<string> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [...cliEntry(), 'publish', '--input', input, ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes(`] ${stage}`)) child.kill('SIGKILL');
    });
    child.on('close', (code, signal) => done(signal ?? `exit ${code}\n${stderr}`));
  });
}

const counts = (m: CatalogManifest) => ({ counts: m.counts, events: m.events, registry: m.registry_release });

describe('publishing into an object store', function () {
  this.timeout(300_000);
  let s3: TestS3;
  let root: string;
  let restore: () => void;
  const days: string[] = [];
  before(async () => {
    s3 = await startS3();
    restore = useS3Environment(s3);
    root = await tempDir('objpub');
    for (const day of [1, 2, 3]) days.push(await writeDay(join(root, 'delivery'), day, { postings: postings(day) }));
  });
  after(async () => {
    restore();
    await s3.stop();
    await rm(root, { recursive: true, force: true });
  });

  it('builds each publication once, serving files included, and any node publishes the next from the store alone', async () => {
    const objectStore = s3.url('chain');
    const first = node(root, 'publisher-1');
    await publish({ input: days[0]!, ...first, objectStore, quiet: true, memoryLimit: '1GB' });
    const keys = (await s3.store('chain').list('')).map((o) => o.key);
    const w1 = cutoffOf(1);
    expect(keys).to.include.members([
      'catalog/LATEST',
      `catalog/${w1}/manifest.json`,
      `catalog/${w1}/jobs.parquet`,
      `catalog/${w1}/serving/documents.jsonl`,
      `catalog/${w1}/serving/title.index`,
      `catalog/${w1}/serving/description.index`,
      `catalog/${w1}/feed/events.jsonl`,
      `catalog/${w1}/feed/index.parquet`,
    ]);
    expect(keys.some((k) => k.startsWith(`pipeline/${w1}/`))).to.equal(true);

    // The first publisher's disk is lost: a new node publishes the next day from what the store holds.
    await rm(join(root, 'publisher-1'), { recursive: true, force: true });
    const second = node(root, 'publisher-2');
    const summary = await publish({ input: days[1]!, ...second, objectStore, quiet: true, memoryLimit: '1GB' });
    expect(summary.previous_watermark).to.equal(w1);
    expect((await s3.store('chain').get('catalog/LATEST'))!.toString().trim()).to.equal(cutoffOf(2));

    // The same as one node publishing both days on its own disk.
    const alone = node(root, 'alone');
    await publish({ input: days[0]!, ...alone, quiet: true, memoryLimit: '1GB' });
    await publish({ input: days[1]!, ...alone, quiet: true, memoryLimit: '1GB' });
    const viaStore = await readCatalogManifest(snapshotDir(second.snapshotsDir, cutoffOf(2)));
    const onDisk = await readCatalogManifest(snapshotDir(alone.snapshotsDir, cutoffOf(2)));
    expect(counts(viaStore)).to.deep.equal(counts(onDisk));
    expect(viaStore.serving_files).to.equal(true);
  });

  it('a publisher killed mid-upload never moves LATEST, and the next one removes what it uploaded', async () => {
    const objectStore = s3.url('killed');
    const store = s3.store('killed');
    const publisher = node(root, 'killed');
    const args = ['--snapshots-dir', publisher.snapshotsDir, '--data-dir', publisher.dataDir, '--object-store', objectStore];
    expect((await runCli(['publish', '--input', days[0]!, ...args], s3.env)).code).to.equal(0);
    expect(await publishKilledAt(days[1]!, args, s3.env, 'upload')).to.equal('SIGKILL');
    expect((await store.get('catalog/LATEST'))!.toString().trim()).to.equal(cutoffOf(1));

    // Another node (the dead one's disk is gone too) publishes the day again, then the next.
    const next = node(root, 'killed-next');
    const nextArgs = ['--snapshots-dir', next.snapshotsDir, '--data-dir', next.dataDir, '--object-store', objectStore];
    // What the dead run uploaded (under a watermark LATEST never named) is cleared first.
    await store.put(`catalog/${cutoffOf(3)}/jobs.parquet`, 'half an upload');
    await store.put(`pipeline/${cutoffOf(3)}/state.parquet`, 'half an upload');
    const rerun = await runCli(['publish', '--input', days[1]!, '--json', ...nextArgs], s3.env);
    expect(rerun.code, rerun.stderr).to.equal(0);
    expect((await store.list(`catalog/${cutoffOf(3)}/`)).length).to.equal(0);
    expect((await store.list(`pipeline/${cutoffOf(3)}/`)).length).to.equal(0);
    expect((await runCli(['publish', '--input', days[2]!, ...nextArgs], s3.env)).code).to.equal(0);
    expect((await store.get('catalog/LATEST'))!.toString().trim()).to.equal(cutoffOf(3));
    const leftovers = (await readdir(join(next.dataDir, 'pipeline'))).filter((n) => n.startsWith('.'));
    expect(leftovers).to.deep.equal([]);
  });

  it('a replica serves what the store publishes from an empty disk, and its copy is a cache it can lose', async () => {
    const objectStore = s3.url('chain');
    const app = await startTestApp({ objectStore });
    try {
      const { key } = await app.account();
      await app.service.watcher.check();
      const manifest = await readCatalogManifest(snapshotDir(app.config.snapshotsDir, cutoffOf(2)));
      const page = await app.api.request('GET', '/v1/jobs/count', { key });
      expect(page.status).to.equal(200);
      expect((page.body as { count: number }).count).to.equal(
        manifest.counts.by_currentness.current! + manifest.counts.by_currentness.uncertain!,
      );
      const feed = await app.api.request('GET', `/v1/jobs/changes?since=2000-01-01T00:00:00Z&limit=1000`, { key });
      expect(feed.status).to.equal(200);
      // Deleting the copy and restarting: it is fetched again.
      await app.service.close();
      await rm(app.config.snapshotsDir, { recursive: true, force: true });
      await app.restart(Promise.resolve());
      const again = await app.api.request('GET', '/v1/jobs/count', { key });
      expect(again.body).to.deep.equal(page.body);
      const feedAgain = await app.api.request('GET', `/v1/jobs/changes?since=2000-01-01T00:00:00Z&limit=1000`, { key });
      expect((feedAgain.body as { data: unknown[] }).data).to.deep.equal((feed.body as { data: unknown[] }).data);
    } finally {
      await app.close();
    }
  });
});
