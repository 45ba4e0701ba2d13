// Compression of JSON answers: `npm run bench:compression -- [--jobs 20000] [--seed 1] [--requests 100]`.
// 1. The levels: the bodies of a 250-job page and a 1,000-event changes page, fetched once, compressed
//    in this process with gzip levels 1-9 and brotli qualities 1-11 (median time of 5, and size): what
//    chose GZIP_LEVEL and BROTLI_QUALITY in src/http/compression.ts.
// 2. End to end: the real server (its own process, the benchmark's catalog) answers each page
//    --requests times without Accept-Encoding, with gzip and with br, one request at a time: bytes on
//    the wire and the server's CPU time (user + system, all its threads, from /proc) per request.
// It prints both tables and writes the figures as JSON under bench/results/.

import { mkdir, writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { BROTLI_QUALITY, GZIP_LEVEL } from '../src/http/compression.js';
import { benchCatalog } from './catalog.js';
import { ROOT } from './cli.js';
import { cpuMs } from './measure.js';
import { startBenchService, type BenchService } from './service.js';

const { values } = parseArgs({
  options: {
    jobs: { type: 'string', default: '20000' },
    seed: { type: 'string', default: '1' },
    requests: { type: 'string', default: '100' },
  },
  strict: true,
});
const REQUESTS = Number(values.requests);

const PAGES = [
  { name: 'page of 250 jobs', path: '/v1/jobs?limit=250' },
  { name: 'changes: 1,000 events', path: '/v1/jobs/changes?since=2000-01-01T00:00:00Z&limit=1000' },
];
const ENCODINGS = ['identity', 'gzip', 'br'] as const;

/** The server's CPU time so far, in ms: user + system of all its threads (zlib works on libuv's). */
const serverCpuMs = (pid: number): number => cpuMs(pid)!.process;

/** One GET; the body as it came over the wire. */
function get(
  agent: Agent,
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; encoding: string; wire: number; body: Buffer }> {
  return new Promise((done, fail) => {
    const req = request(url, { agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        done({ status: res.statusCode ?? 0, encoding: String(res.headers['content-encoding'] ?? 'identity'), wire: body.length, body });
      });
    });
    req.on('error', fail);
    req.end();
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Time and size of compressing `body` at each level, in this process. */
function levels(body: Buffer) {
  const time = (f: () => Buffer) => {
    let bytes = 0;
    const ms = median(
      Array.from({ length: 5 }, () => {
        const started = performance.now();
        bytes = f().length;
        return performance.now() - started;
      }),
    );
    return { ms, bytes };
  };
  const gzip = Array.from({ length: 9 }, (_, i) => ({ level: i + 1, ...time(() => gzipSync(body, { level: i + 1 })) }));
  const brotli = Array.from({ length: 11 }, (_, i) => ({
    level: i + 1,
    ...time(() => brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: i + 1 } })),
  }));
  return { bytes: body.length, gzip, brotli };
}

async function endToEnd(service: BenchService, path: string, encoding: (typeof ENCODINGS)[number]) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let turn = 0;
  const headers = () => ({
    authorization: `Bearer ${service.keys[turn++ % service.keys.length]}`,
    ...(encoding === 'identity' ? {} : { 'accept-encoding': encoding }),
  });
  for (let i = 0; i < 5; i++) await get(agent, `${service.url}${path}`, headers()); // warm-up
  const wire: number[] = [];
  const wall: number[] = [];
  const cpuBefore = serverCpuMs(service.pid);
  for (let i = 0; i < REQUESTS; i++) {
    const started = performance.now();
    const res = await get(agent, `${service.url}${path}`, headers());
    wall.push(performance.now() - started);
    if (res.status !== 200 || res.encoding !== encoding)
      throw new Error(`${path} (${encoding}): ${res.status}, Content-Encoding ${res.encoding}`);
    wire.push(res.wire);
  }
  const cpuPerRequestMs = (serverCpuMs(service.pid) - cpuBefore) / REQUESTS;
  agent.destroy();
  return { encoding, bytes: median(wire), cpuPerRequestMs, medianMs: median(wall) };
}

const catalog = await benchCatalog(Number(values.jobs), Number(values.seed));
const service = await startBenchService(catalog);
const results: { page: string; levels: ReturnType<typeof levels>; http: Awaited<ReturnType<typeof endToEnd>>[] }[] = [];
try {
  for (const page of PAGES) {
    const agent = new Agent({ keepAlive: true });
    const plain = await get(agent, `${service.url}${page.path}`, { authorization: `Bearer ${service.key}` });
    agent.destroy();
    const http = [];
    for (const encoding of ENCODINGS) http.push(await endToEnd(service, page.path, encoding));
    results.push({ page: page.name, levels: levels(plain.body), http });
  }
} finally {
  await service.close();
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
for (const r of results) {
  console.log(`\n${r.page}: ${r.levels.bytes.toLocaleString('en-US')} bytes of JSON`);
  console.log('  level  gzip ms   gzip bytes   |  brotli ms  brotli bytes');
  for (let i = 0; i < 11; i++) {
    const g = r.levels.gzip[i];
    const b = r.levels.brotli[i]!;
    const gz = g ? `${g.ms.toFixed(2).padStart(7)}  ${g.bytes.toLocaleString('en-US').padStart(11)}` : ' '.repeat(20);
    console.log(
      `  ${String(i + 1).padStart(5)}  ${gz}   |  ${b.ms.toFixed(2).padStart(9)}  ${b.bytes.toLocaleString('en-US').padStart(12)}`,
    );
  }
  console.log(`  served (gzip level ${GZIP_LEVEL}, brotli quality ${BROTLI_QUALITY}), ${REQUESTS} requests each:`);
  for (const h of r.http)
    console.log(
      `    ${h.encoding.padEnd(9)} ${kb(h.bytes).padStart(10)} on the wire, server CPU ${h.cpuPerRequestMs.toFixed(2)} ms/request, median ${h.medianMs.toFixed(2)} ms`,
    );
}

const dir = join(ROOT, 'bench', 'results');
await mkdir(dir, { recursive: true });
const file = join(dir, `compression-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
await writeFile(
  file,
  JSON.stringify({ jobs: Number(values.jobs), requests: REQUESTS, gzipLevel: GZIP_LEVEL, brotliQuality: BROTLI_QUALITY, results }, null, 2),
);
console.log(`\n${file}`);
