import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { cp, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duck } from '../../src/db/duckdb.js';
import { publish } from '../../src/catalog/publish/publish.js';
import { latestPointer, readCatalogManifest, readPointer, snapshotDir } from '../../src/catalog/layout.js';
import { tempDir } from '../support/app.js';
import { cliEntry, runCli } from '../support/cli.js';
import { cutoffOf, writeDay, type TestPosting } from '../support/delivery.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function postings(day: number): TestPosting[] {
  return Array.from({ length: 400 }, (_, i) => ({
    source: i % 3 === 0 ? 'indeed' : 'greenhouse',
    board: `employer-${i % 40}`,
    id: `${i}-${day > 1 && i % 7 === 0 ? 'r' : ''}`,
    opening: `o${i}`,
    employer: `Employer ${i % 40}`,
    title: `Role ${i}`,
    description: `Employer ${i % 40} hires for role ${i}. The role ${i} works on project ${i * 7}. Day ${day} text for ${i}.`,
  }));
}

/** Runs `publish` and SIGKILLs it as soon as it announces `stage` on stderr; resolves with how it ended. */
function publishKilledAt(input: string, dirs: string[], stage: string): Promise<string> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [...cliEntry(), 'publish', '--input', input, ...dirs], { cwd: ROOT });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes(`] ${stage}`)) child.kill('SIGKILL');
    });
    child.on('close', (code, signal) => done(signal ?? `exit ${code}`));
  });
}

async function intact(snapshotsDir: string, watermark: string): Promise<void> {
  const dir = snapshotDir(snapshotsDir, watermark);
  const manifest = await readCatalogManifest(dir);
  const duck = await Duck.open();
  try {
    const row = await duck.one<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM read_parquet('${join(dir, 'jobs*.parquet')}')`);
    expect(row!.n).to.equal(manifest.counts.jobs);
  } finally {
    duck.close();
  }
}

describe('publish after a crash', function () {
  this.timeout(180_000);
  let base: string;
  let day1: string;
  let day2: string;

  // Day 1 published once (here, in this process); each trial starts from a copy of its folders.
  before(async () => {
    base = await tempDir('crash-base');
    day1 = await writeDay(join(base, 'delivery'), 1, { postings: postings(1) });
    day2 = await writeDay(join(base, 'delivery'), 2, { postings: postings(2) });
    await publish({ input: day1, snapshotsDir: join(base, 'snapshots'), dataDir: join(base, 'data'), quiet: true, memoryLimit: '1GB' });
  });
  after(() => rm(base, { recursive: true, force: true }));

  for (const stage of ['load delivery', 'merge duplicates', 'write', 'commit']) {
    it(`killed at "${stage}", leaves the previous catalog intact and a rerun succeeds`, async () => {
      const root = await tempDir('crash');
      const dirs = ['--snapshots-dir', join(root, 'snapshots'), '--data-dir', join(root, 'data')];
      for (const folder of ['snapshots', 'data']) await cp(join(base, folder), join(root, folder), { recursive: true });

      const ended = await publishKilledAt(day2, dirs, stage);
      expect(ended).to.equal('SIGKILL');
      const latest = await readPointer(latestPointer(join(root, 'snapshots')));
      expect(latest).to.be.oneOf([cutoffOf(1), cutoffOf(2)]);
      await intact(join(root, 'snapshots'), latest!);
      await intact(join(root, 'snapshots'), cutoffOf(1));

      const rerun = await runCli(['publish', '--input', day2, '--json', ...dirs]);
      expect(rerun.code, rerun.stderr).to.equal(0);
      expect((JSON.parse(rerun.stdout) as { status: string }).status).to.be.oneOf(['published', 'already_published']);
      expect(await readPointer(latestPointer(join(root, 'snapshots')))).to.equal(cutoffOf(2));
      await intact(join(root, 'snapshots'), cutoffOf(2));
      // Whoever finds a dead run's files removes them: work folders, temporary snapshots and pointers.
      for (const dir of [join(root, 'snapshots', 'catalog'), join(root, 'snapshots', 'registry'), join(root, 'data', 'pipeline')]) {
        const leftovers = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.startsWith('.') || n.includes('.tmp-'));
        expect(leftovers, dir).to.deep.equal([]);
      }
      await rm(root, { recursive: true, force: true });
    });
  }
});
