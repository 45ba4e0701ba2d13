import { expect } from 'chai';
import { relative, join } from 'node:path';
import { rm } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import { generateCorpus } from '../../src/catalog/generator/corpus.js';
import { seededDataDir, tempDir } from '../support/app.js';
import { ApiClient } from '../support/client.js';
import { runCli, startServer, type RunningServer } from '../support/cli.js';

describe('serve with relative data and snapshots folders', function () {
  this.timeout(180_000);
  let root: string;
  let server: RunningServer | undefined;

  before(async () => {
    root = await tempDir('relative');
  });
  after(async () => {
    await server?.stop();
    await rm(root, { recursive: true, force: true });
  });

  it('downloads export file 1 as gzip (200), as the README shows, when --data-dir is a relative path', async () => {
    // The CLI runs in the repository folder, like this test: the folders are given relative to it.
    const dirs = [
      '--data-dir',
      relative(process.cwd(), join(root, 'data')),
      '--snapshots-dir',
      relative(process.cwd(), join(root, 'snapshots')),
    ];
    expect(dirs[1]).not.to.match(/^\//);
    await seededDataDir(join(root, 'data'));
    await generateCorpus({ jobs: 200, seed: 7, days: 1, start: '2026-11-18' }, join(root, 'corpus'), { workers: 0 });
    const published = await runCli(['publish', '--input', join(root, 'corpus', 'day-001'), ...dirs]);
    expect(published.code, published.stderr).to.equal(0);
    const account = JSON.parse((await runCli(['accounts', 'create', '--plan', 'paid-5k', '--json', ...dirs.slice(0, 2)])).stdout) as {
      account_id: string;
    };
    const { key } = JSON.parse(
      (await runCli(['keys', 'create', '--account', account.account_id, '--json', ...dirs.slice(0, 2)])).stdout,
    ) as { key: string };

    server = await startServer(dirs);
    const api = new ApiClient(server.url);
    const created = await api.post<{ export_id: string }>('/v1/jobs/exports', { max_records: 20 }, { key });
    expect(created.status).to.equal(202);
    let status = '';
    for (let i = 0; i < 150 && status !== 'completed'; i++) {
      status = (await api.get<{ status: string }>(`/v1/jobs/exports/${created.body.export_id}`, { key })).body.status;
      if (status !== 'completed') await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(status).to.equal('completed');

    const file = await api.download(`/v1/jobs/exports/${created.body.export_id}/files/1`, { key });
    expect(file.status, file.body.toString('utf8')).to.equal(200);
    expect([...file.body.subarray(0, 2)]).to.deep.equal([0x1f, 0x8b]);
    expect(gunzipSync(file.body).toString('utf8').trim().split('\n')).to.have.length(20);
  });
});
