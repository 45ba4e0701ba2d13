// The benchmark harness as CI runs it (issue 4), on 2,000 jobs to keep npm test within 6 minutes on 2 cores
// (20,000 took 58 s of a test worker, 5,000 took 55 s on a slower day): `npm run bench -- --jobs 2000 --quick`,
// each measurement a twentieth of a second (--duration 0.05: every client still sends at least one request), end to end:
// corpus, publication, the server, every route class over HTTP, the PostgreSQL peer (its queries alone and
// behind HTTP). Figures are
// printed, never asserted (the machines are shared and noisy); what is asserted is that it runs,
// that every request answered 2xx, that each route class has its PostgreSQL figures and its overhead, and that an
// export completed.

import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface Results {
  http: {
    scenario: string;
    connections: number;
    requests: number;
    failures: number;
    pgMedianMs: number | null;
    peerMedianMs: number | null;
    overheadMedianMs: number | null;
    cpuMsPerRequest: number | null;
    mainCpuMsPerRequest: number | null;
  }[];
  server_rss_gib: number;
  exports: { records: number; files: number; seconds: number }[];
}

describe('the benchmark harness (smoke run)', function () {
  this.timeout(15 * 60_000);

  it('runs npm run bench -- --jobs 2000 --quick (a twentieth of a second per measurement) end to end and writes its figures', async () => {
    let out = '';
    const code = await new Promise<number | null>((done) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'bench/run.ts', '--jobs', '2000', '--quick', '--duration', '0.05'], {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      child.stderr.on('data', () => undefined);
      child.on('close', done);
    });
    expect(code, out).to.equal(0);
    console.log(out.slice(out.indexOf('scenario')).replace(/^/gm, '      '));
    const file = /written to (\S+\.json)/.exec(out)?.[1];
    expect(file, out).to.be.a('string');
    const results = JSON.parse(await readFile(file!, 'utf8')) as Results;
    const classes = [
      'job by id',
      'page of 50 (default order)',
      'filtered page of 50',
      'search: title phrase',
      'search: q (common and rare words)',
      'search: description (two words)',
      'search: advanced',
      'count',
      'count with text',
    ];
    for (const name of classes) {
      const rows = results.http.filter((r) => r.scenario === name);
      expect(
        rows.map((r) => r.connections),
        name,
      ).to.deep.equal([1, 4]);
      for (const row of rows) {
        expect(row.requests, name).to.be.greaterThan(0);
        expect(row.failures, name).to.equal(0);
      }
      expect(rows[0]!.pgMedianMs, `${name}: PostgreSQL figure`).to.be.a('number');
      // The peer behind HTTP answered the same requests with 1 and with 4 clients; ours report their overhead.
      for (const row of rows) {
        expect(row.peerMedianMs, `${name}: the peer's whole request`).to.be.a('number');
        expect(row.overheadMedianMs, `${name}: overhead`).to.be.a('number');
        // The server's CPU a request, read from /proc (in ticks of 10 ms: a short run may show none).
        expect(row.cpuMsPerRequest, `${name}: CPU a request`).to.be.a('number').and.at.least(0);
        expect(row.mainCpuMsPerRequest, `${name}: main thread's CPU a request`).to.be.a('number').and.at.least(0);
      }
    }
    const feed = results.http.filter((r) => r.scenario === 'changes: page of 1,000 events');
    expect(feed.map((r) => [r.connections, r.failures])).to.deep.equal([
      [1, 0],
      [4, 0],
    ]);
    expect(results.exports).to.have.length(1);
    expect(results.exports[0]!.files).to.equal(Math.ceil(results.exports[0]!.records / 10_000));
    expect(results.server_rss_gib).to.be.greaterThan(0);
  });
});
