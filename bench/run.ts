// The benchmarks: `npm run bench -- [--jobs 20000] [--seed 1] [--days 1] [--quick] [--skip-http] [--skip-pg] [--duration 10]
// [--only trends [--only 'by id' ...]] [--run DIR]`.
// 1. the corpus (generated once per --jobs, --seed and --days, then reused from bench/.cache/);
// 2. its publications, one a day: duration and peak memory of the last `publish`, precision and recall of
//    its merge;
// 3. HTTP: the real server over that catalog, each scenario (a seeded mix of requests of one route
//    class) warmed up, then measured with 1 and with 4 concurrent clients (median, p99, requests per
//    second, and the median catalog and metering times the server reports in Server-Timing; requests
//    are spread over many accounts, each with its own request window, and the overhead: the whole request
//    less its catalog time); the PostgreSQL peer answers the same requests in the same run, as queries
//    alone (the catalog ratio) and behind HTTP with as many clients (bench/pg-peer-http.ts: the ratio);
// 4. the server's memory (RSS) with the catalog open.
// It prints one table and writes the same figures as JSON under bench/results/.

import { readFileSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { benchCatalog, type CatalogRun } from './catalog.js';
import { benchExport, feedStarts, type ExportRun } from './exports.js';
import { measure, type Measurement } from './measure.js';
import { startPeerHttp, startPgPeer } from './pg-peer.js';
import { writeResults } from './results.js';
import { sampleCatalog, scenarios, type Scenario } from './scenarios.js';
import { startBenchService } from './service.js';

const { values } = parseArgs({
  options: {
    jobs: { type: 'string', default: '20000' },
    seed: { type: 'string', default: '1' },
    days: { type: 'string', default: '1' },
    quick: { type: 'boolean', default: false },
    'skip-http': { type: 'boolean', default: false },
    'skip-pg': { type: 'boolean', default: false },
    duration: { type: 'string' },
    /** Only the scenarios whose name holds one of these texts (and no exports), e.g. --only trends --only 'by id'. */
    only: { type: 'string', multiple: true },
    /** Serve the publications already in DIR/snapshots (state in DIR/data) instead of generating and publishing. */
    run: { type: 'string' },
  },
  strict: true,
});
const jobs = Number(values.jobs);
const seconds = Number(values.duration ?? (values.quick ? 2 : 10));

/** Resident memory of a process, from /proc (Linux). */
function rssGib(pid: number): number {
  const kib = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
  return kib / 2 ** 20;
}

const catalog = values.run === undefined ? await benchCatalog(jobs, Number(values.seed), Number(values.days)) : reused(values.run);
const p = catalog.publish;
console.log(
  `corpus   ${jobs.toLocaleString('en-US')} jobs${catalog.generate_s === null ? ' (reused)' : `, generated${Number(values.days) > 1 ? ' and published' : ''} in ${catalog.generate_s.toFixed(1)} s`}`,
);
if (values.run !== undefined) console.log(`publish  none: the publications of ${values.run} served as they are`);
else {
  console.log(
    `publish  ${p.postings.toLocaleString('en-US')} postings → ${p.jobs.toLocaleString('en-US')} jobs in ${p.duration_s} s, peak memory ${p.peak_rss_gib} GiB`,
  );
  console.log(`merge    precision ${(catalog.merge.precision * 100).toFixed(2)} %, recall ${(catalog.merge.recall * 100).toFixed(2)} %`);
}

/**
 * The publications of an earlier run, served as they are (nothing published: the publish and merge figures
 * are NaN), by a server with a state store and journal of its own: an earlier run's accounts and ledger rows
 * would be compacted under this run's load once past their grace (ten minutes), in the store's one thread.
 */
function reused(root: string): CatalogRun {
  for (const folder of ['state', 'meter-journal']) rmSync(join(root, 'data', folder), { recursive: true, force: true });
  const none = { duration_s: NaN, peak_rss_gib: NaN, jobs: NaN, postings: NaN };
  return {
    corpus: '',
    snapshotsDir: join(root, 'snapshots'),
    dataDir: join(root, 'data'),
    generate_s: null,
    publish: none,
    merge: { precision: NaN, recall: NaN },
  };
}

interface Row extends Measurement {
  scenario: string;
  /** PostgreSQL's median query alone (the bench process times the client call), with 1 client. */
  pgMedianMs: number | null;
  /** The PostgreSQL peer behind HTTP (bench/pg-peer-http.ts): its median whole request and its rate, with as many clients. */
  peerMedianMs: number | null;
  peerRequestsPerSecond: number | null;
  /** Our median request over the peer's median request: whole request against whole request. */
  ratio: number | null;
  /** Our median catalog time (Server-Timing) over PostgreSQL's median query: both the query alone (1 client). */
  catalogRatio: number | null;
}
const http: Row[] = [];
let serverRssGib: number | null = null;
const exports: ExportRun[] = [];
if (!values['skip-http']) {
  const snapshot = join(catalog.snapshotsDir, 'catalog', (await readFile(join(catalog.snapshotsDir, 'catalog', 'LATEST'), 'utf8')).trim());
  const sample = await sampleCatalog(snapshot);
  // Every scenario is measured with 1 and 4 clients, each after a warm-up: the seconds of load in the run.
  const chosen = (list: Scenario[]) => list.filter((s) => values.only === undefined || values.only.some((text) => s.name.includes(text)));
  const loadSeconds = chosen(scenarios({ url: '', key: '' }, sample, [''])).length * 2 * (Math.min(1, seconds) + seconds);
  const [service, peer] = await Promise.all([startBenchService(catalog, loadSeconds), values['skip-pg'] ? null : startPgPeer(snapshot)]);
  const peerHttp = peer ? await startPeerHttp(peer) : null;
  try {
    for (const scenario of chosen(scenarios(service, sample, await feedStarts(service)))) {
      let i = 0;
      const next = () => scenario.requests[i++ % scenario.requests.length]!.request;
      // The peer answers the same requests, one at a time, in the same run.
      let pgMedianMs: number | null = null;
      const peerQueries = scenario.requests.flatMap((r) => (r.peer ? [r.peer] : []));
      if (peer && peerQueries.length > 0) {
        const times: number[] = [];
        for (const q of peerQueries.slice(0, 5)) await peer.query(q.kind, q.params); // warm-up
        const until = performance.now() + seconds * 1000;
        for (let k = 0; performance.now() < until || k < peerQueries.length; k++)
          times.push(await peer.query(peerQueries[k % peerQueries.length]!.kind, peerQueries[k % peerQueries.length]!.params));
        times.sort((a, b) => a - b);
        pgMedianMs = times[Math.floor(times.length / 2)]!;
      }
      for (const connections of [1, 4]) {
        const keyed = { keys: service.keys, perKey: scenario.perKey };
        await measure(next, { connections, seconds: Math.min(1, seconds), ...keyed }); // warm-up
        const result = await measure(next, { connections, seconds, ...keyed, pid: service.pid });
        if (result.failures > 0) throw new Error(`${scenario.name}: ${result.failures} of ${result.requests} responses were not 2xx`);
        // The peer behind HTTP answers the same requests with as many clients, right after ours.
        let peerRun: Measurement | null = null;
        if (peerHttp && peerQueries.length > 0) {
          let k = 0;
          const peerNext = () => peerHttp.request(peerQueries[k++ % peerQueries.length]!);
          await measure(peerNext, { connections, seconds: Math.min(1, seconds), keys: peerHttp.keys }); // warm-up
          peerRun = await measure(peerNext, { connections, seconds, keys: peerHttp.keys });
          if (peerRun.failures > 0)
            throw new Error(`${scenario.name}: the peer failed ${peerRun.failures} of ${peerRun.requests} requests`);
        }
        const single = connections === 1 && pgMedianMs !== null;
        http.push({
          scenario: scenario.name,
          ...result,
          pgMedianMs: single ? pgMedianMs : null,
          peerMedianMs: peerRun?.medianMs ?? null,
          peerRequestsPerSecond: peerRun?.requestsPerSecond ?? null,
          ratio: peerRun ? result.medianMs / peerRun.medianMs : null,
          catalogRatio: single && result.catalogMedianMs !== null ? result.catalogMedianMs / pgMedianMs! : null,
        });
      }
    }
    serverRssGib = rssGib(service.pid);
    // Exports of up to 100,000 full jobs (fewer on a smaller catalog), one after the other.
    const runs = values.only !== undefined ? 0 : values.quick ? 1 : 3;
    for (let run = 0; run < runs; run++) exports.push(await benchExport(service, Math.min(100_000, jobs)));
  } finally {
    await service.close();
    await peerHttp?.close();
    await peer?.stop();
  }
  const header = [
    'scenario',
    'clients',
    'median ms',
    'p99 ms',
    'req/s',
    'catalog ms',
    'overhead ms',
    'meter ms',
    'cpu ms',
    'main cpu ms',
    'peer ms',
    'peer req/s',
    'ratio',
    'PG query ms',
    'catalog ratio',
  ];
  const fixed = (value: number | null, digits = 2) => (value === null ? '' : value.toFixed(digits));
  const rows = http.map((r) => [
    r.scenario,
    String(r.connections),
    fixed(r.medianMs),
    fixed(r.p99Ms),
    fixed(r.requestsPerSecond, 0),
    fixed(r.catalogMedianMs),
    fixed(r.overheadMedianMs),
    fixed(r.meterMedianMs),
    fixed(r.cpuMsPerRequest, 3),
    fixed(r.mainCpuMsPerRequest, 3),
    fixed(r.peerMedianMs),
    fixed(r.peerRequestsPerSecond, 0),
    fixed(r.ratio),
    fixed(r.pgMedianMs),
    fixed(r.catalogRatio),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  console.log('');
  for (const row of [header, ...rows]) console.log(row.map((cell, i) => cell.padEnd(widths[i]!)).join('  '));
  if (serverRssGib !== null) console.log(`\nserver memory with the catalog open: ${serverRssGib.toFixed(2)} GiB RSS`);
  for (const e of exports) {
    console.log(
      `export   ${e.records.toLocaleString('en-US')} jobs in ${e.files} files, ${e.compressed_mb.toFixed(1)} MB gzip: ${e.seconds.toFixed(2)} s ` +
        `(server ${e.server_seconds.toFixed(2)} s), ${e.mb_per_s.toFixed(1)} MB/s compressed; RSS ${e.rss_before_mib.toFixed(0)} → peak ${e.rss_peak_mib.toFixed(0)} MiB`,
    );
  }
}

await writeResults(null, { at: new Date().toISOString(), jobs, seconds, catalog, http, server_rss_gib: serverRssGib, exports });
