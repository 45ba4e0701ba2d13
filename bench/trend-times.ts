// The service's own time for trends, without HTTP: `npx tsx bench/trend-times.ts <publication folder>
// '<query>' ...` opens the publication as a server does (its versions too), then times
// TrendsService.trend for each query string (the filters and group_by of GET /v1/jobs/trends), N times
// each (N=7 by default; the environment's N), and prints the median, the fastest and the slowest (the
// first request of a condition pays its filter query; later ones read the filter cache).

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import pino from 'pino';
import { QueryEngine } from '../src/db/engine.js';
import { readFilters } from '../src/jobs/filters.js';
import type { GroupBy } from '../src/jobs/groups.js';
import { jobsSnapshotOpener, type JobsSnapshot } from '../src/jobs/snapshot.js';
import { readTrendRequest, TrendsService } from '../src/jobs/trends.js';

const [folder, ...queries] = process.argv.slice(2);
if (!folder || queries.length === 0) {
  process.stderr.write("usage: npx tsx bench/trend-times.ts <publication folder> '<query>' ...\n");
  process.exit(2);
}
const runs = Number(process.env.N ?? 7);
const engine = await QueryEngine.open({ timeoutMs: 600_000 });
const cache = await mkdtemp(join(tmpdir(), 'jps-trend-times-'));
try {
  const dir = resolve(folder);
  const began = performance.now();
  const s = (await jobsSnapshotOpener(engine, cache, pino({ level: 'warn' }))(dir, basename(dir))) as JobsSnapshot;
  if (!s.trends) throw new Error(`${dir} has no trends/ folder`);
  const rss = process.memoryUsage().rss / 2 ** 30;
  console.log(
    `opened in ${((performance.now() - began) / 1000).toFixed(1)} s: ${s.trends.size.toLocaleString('en-US')} versions, RSS ${rss.toFixed(2)} GiB`,
  );
  const service = new TrendsService(engine);
  for (const query of queries) {
    const { group_by, interval, start, end, ...filters } = Object.fromEntries(new URLSearchParams(query));
    const request = readTrendRequest({ interval, start, end }, group_by as GroupBy | undefined);
    const f = readFilters(filters, 'query');
    const ms: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      await service.trend(s, f, request);
      ms.push(performance.now() - t0);
    }
    ms.sort((a, b) => a - b);
    const fixed = (v: number) => v.toFixed(1).padStart(7);
    console.log(`${query.padEnd(48)} median ${fixed(ms[runs >> 1]!)} ms  min ${fixed(ms[0]!)}  max ${fixed(ms[runs - 1]!)}`);
  }
} finally {
  engine.close();
  await rm(cache, { recursive: true, force: true });
}
