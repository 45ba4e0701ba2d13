import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duck } from '../../src/db/duckdb.js';
import { latestPointer, readCatalogManifest, readPointer, snapshotDir } from '../../src/catalog/layout.js';
import { tempDir } from '../support/app.js';
import { runCli } from '../support/cli.js';
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
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'publish', '--input', input, ...dirs], { cwd: ROOT });
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

  for (const stage of ['load delivery', 'merge duplicates', 'write', 'commit']) {
    it(`killed at "${stage}", leaves the previous catalog intact and a rerun succeeds`, async () => {
      const root = await tempDir('crash');
      const dirs = ['--snapshots-dir', join(root, 'snapshots'), '--data-dir', join(root, 'data')];
      const day1 = await writeDay(join(root, 'delivery'), 1, { postings: postings(1) });
      const day2 = await writeDay(join(root, 'delivery'), 2, { postings: postings(2) });
      expect((await runCli(['publish', '--input', day1, ...dirs])).code).to.equal(0);

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
    });
  }
});
