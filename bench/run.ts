// The benchmarks: `npm run bench -- [--jobs 20000] [--seed 1] [--quick] [--skip-http] [--duration 10]`.
// 1. the corpus (generated once per --jobs and --seed, then reused from bench/.cache/);
// 2. its publication: duration and peak memory of `publish`, precision and recall of the merge;
// 3. HTTP: the real server over that catalog, each scenario warmed up, then measured with 1 and
//    with 4 concurrent clients (median, p99, requests per second).
// It prints one table and writes the same figures as JSON under bench/results/.

import { mkdir, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { benchCatalog } from './catalog.js';
import { measure, type Measurement } from './measure.js';
import { scenarios } from './scenarios.js';
import { startBenchService } from './service.js';

const { values } = parseArgs({
  options: {
    jobs: { type: 'string', default: '20000' },
    seed: { type: 'string', default: '1' },
    quick: { type: 'boolean', default: false },
    'skip-http': { type: 'boolean', default: false },
    duration: { type: 'string' },
  },
  strict: true,
});
const jobs = Number(values.jobs);
const seconds = Number(values.duration ?? (values.quick ? 2 : 10));

const catalog = await benchCatalog(jobs, Number(values.seed));
const p = catalog.publish;
console.log(`corpus   ${jobs.toLocaleString('en-US')} jobs${catalog.generate_s === null ? ' (reused)' : `, generated in ${catalog.generate_s.toFixed(1)} s`}`);
console.log(`publish  ${p.postings.toLocaleString('en-US')} postings → ${p.jobs.toLocaleString('en-US')} jobs in ${p.duration_s} s, peak memory ${p.peak_rss_gib} GiB`);
console.log(`merge    precision ${(catalog.merge.precision * 100).toFixed(2)} %, recall ${(catalog.merge.recall * 100).toFixed(2)} %`);

const http: (Measurement & { scenario: string })[] = [];
if (!values['skip-http']) {
  const service = await startBenchService(catalog);
  try {
    for (const scenario of scenarios(service)) {
      for (const connections of [1, 4]) {
        await measure(() => scenario.request, { connections, seconds: Math.min(1, seconds) }); // warm-up
        const result = await measure(() => scenario.request, { connections, seconds });
        if (result.failures > 0) throw new Error(`${scenario.name}: ${result.failures} of ${result.requests} responses were not 2xx`);
        http.push({ scenario: scenario.name, ...result });
      }
    }
  } finally {
    await service.close();
  }
  const header = ['scenario', 'clients', 'median ms', 'p99 ms', 'req/s'];
  const rows = http.map((r) => [r.scenario, String(r.connections), r.medianMs.toFixed(2), r.p99Ms.toFixed(2), r.requestsPerSecond.toFixed(0)]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  console.log('');
  for (const row of [header, ...rows]) console.log(row.map((cell, i) => cell.padEnd(widths[i]!)).join('  '));
}

await mkdir(new URL('./results/', import.meta.url), { recursive: true });
const file = new URL(`./results/${new Date().toISOString().replace(/[:.]/g, '-')}.json`, import.meta.url);
await writeFile(file, JSON.stringify({ at: new Date().toISOString(), jobs, seconds, catalog, http }, null, 2));
console.log(`\nwritten to ${file.pathname}`);
