import { expect } from 'chai';
import { chmod, lstat, mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { generateCorpus } from '../../src/catalog/generator/corpus.js';
import { tempDir } from '../support/app.js';
import { ApiClient } from '../support/client.js';
import { runCli, startServer } from '../support/cli.js';

/** Every file and folder under `dir`, with its permission bits. */
async function modes(dir: string): Promise<{ path: string; mode: number; folder: boolean }[]> {
  const found: { path: string; mode: number; folder: boolean }[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const stats = await lstat(path);
    if (stats.isSymbolicLink() || stats.isSocket()) continue;
    found.push({ path, mode: stats.mode & 0o777, folder: stats.isDirectory() });
    if (stats.isDirectory()) found.push(...(await modes(path)));
  }
  return found;
}

describe('file modes of the data folder', function () {
  this.timeout(240_000);

  it('keeps the data folder and every file the commands and the server write in it to its owner (0700 / 0600), also a folder an older version left open', async () => {
    const root = await tempDir('modes');
    const dataDir = join(root, 'data');
    const dirs = ['--data-dir', dataDir, '--snapshots-dir', join(root, 'snapshots')];
    // As an older version left it: open to everyone.
    await mkdir(dataDir, { recursive: true });
    await chmod(dataDir, 0o755);
    await generateCorpus({ jobs: 200, seed: 4, days: 1, start: '2026-11-18' }, join(root, 'corpus'), { workers: 0 });
    expect((await runCli(['publish', '--input', join(root, 'corpus', 'day-001'), ...dirs])).code).to.equal(0);
    const account = JSON.parse((await runCli(['accounts', 'create', '--plan', 'paid-5k', '--json', '--data-dir', dataDir])).stdout) as {
      account_id: string;
    };
    const { key } = JSON.parse(
      (await runCli(['keys', 'create', '--account', account.account_id, '--json', '--data-dir', dataDir])).stdout,
    ) as { key: string };

    const server = await startServer([...dirs, '--ledger-compact-ms', '200']);
    try {
      const api = new ApiClient(server.url);
      expect((await api.get('/v1/jobs?limit=3', { key })).status).to.equal(200);
      const created = await api.post<{ export_id: string }>('/v1/jobs/exports', { max_records: 20 }, { key });
      expect(created.status).to.equal(202);
      for (let i = 0; i < 100; i++) {
        const one = await api.get<{ status: string }>(`/v1/jobs/exports/${created.body.export_id}`, { key });
        if (one.body.status === 'completed') break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      // The ledger's rows reach a segment once compaction has run.
      await new Promise((resolve) => setTimeout(resolve, 1000));
    } finally {
      expect(await server.stop()).to.equal(0);
    }

    expect((await lstat(dataDir)).mode & 0o777).to.equal(0o700);
    const all = await modes(dataDir);
    expect(
      all.some((f) => f.path.includes(`${join(dataDir, 'exports')}/`) && !f.folder),
      'an export file',
    ).to.equal(true);
    expect(
      all.some((f) => f.path.includes(join(dataDir, 'state')) && !f.folder),
      'the store',
    ).to.equal(true);
    const open = all.filter((f) => (f.mode & 0o077) !== 0).map((f) => `${f.path.slice(dataDir.length)} ${f.mode.toString(8)}`);
    expect(open).to.deep.equal([]);
    await rm(root, { recursive: true, force: true });
  });
});
