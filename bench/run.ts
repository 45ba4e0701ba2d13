// Benchmarks over HTTP against the real server: `npm run bench -- [--quick] [--duration 10]`.
// Each scenario runs warm-up, then a measured run with 1 and with 4 concurrent clients;
// the table and a JSON copy under bench/results/ give median, p99 and requests per second.

import { mkdir, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { scenarios } from './scenarios.js';
import { startBenchService, type BenchService } from './service.js';
import { measure, type Measurement } from './measure.js';

const { values } = parseArgs({
  options: { quick: { type: 'boolean', default: false }, duration: { type: 'string' } },
  strict: true,
});
const seconds = Number(values.duration ?? (values.quick ? 2 : 10));

const service: BenchService = await startBenchService();
const results: (Measurement & { scenario: string })[] = [];
try {
  for (const scenario of scenarios(service)) {
    for (const connections of [1, 4]) {
      await measure(() => scenario.request, { connections, seconds: Math.min(1, seconds) }); // warm-up
      const result = await measure(() => scenario.request, { connections, seconds });
      if (result.failures > 0) throw new Error(`${scenario.name}: ${result.failures} of ${result.requests} responses were not 2xx`);
      results.push({ scenario: scenario.name, ...result });
    }
  }
} finally {
  await service.close();
}

const header = ['scenario', 'clients', 'median ms', 'p99 ms', 'req/s'];
const rows = results.map((r) => [r.scenario, String(r.connections), r.medianMs.toFixed(2), r.p99Ms.toFixed(2), r.requestsPerSecond.toFixed(0)]);
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
for (const row of [header, ...rows]) console.log(row.map((cell, i) => cell.padEnd(widths[i]!)).join('  '));

await mkdir(new URL('./results/', import.meta.url), { recursive: true });
const file = new URL(`./results/${new Date().toISOString().replace(/[:.]/g, '-')}.json`, import.meta.url);
await writeFile(file, JSON.stringify({ at: new Date().toISOString(), seconds, results }, null, 2));
console.log(`\nwritten to ${file.pathname}`);
