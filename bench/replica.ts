// `npm run bench:replica -- --jobs N`: what a scale-out deployment pays for a publication (issue 19).
// On an S3-compatible store (s3rver, from npm, on this machine), a publisher publishes day 1 of a
// generated corpus of N jobs, serving files included (timed: the publish time); an API replica in its
// own process, with an empty disk, starts and serves it (timed: a new node's cold start, download
// and open); then day 2 is published while the replica runs, and the time from the pointer flip
// (catalog/LATEST naming day 2) to the replica answering from day 2 is measured by polling both
// every 50 ms: download + open of a new publication on a running replica.

import { spawn } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { corpusIsCurrent } from './catalog.js';
import { ROOT, runCliJson } from './cli.js';
import { startS3 } from '../test/support/s3.js';
import type { ObjectStore } from '../src/storage/object-store.js';
import { stoppedWithBench } from './children.js';

const { values } = parseArgs({ options: { jobs: { type: 'string', default: '20000' }, seed: { type: 'string', default: '1' } } });
const jobs = Number(values.jobs);
const seed = Number(values.seed);

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/**
 * A serving replica reading publications from the object store. Its stdout: the JSON log, and the line
 * saying where it listens; the open's own time (open_ms: tables, documents, indexes, without the
 * download) is read from the log, per publication opened.
 */
function startReplica(run: string, objectStore: string, env: Record<string, string>) {
  const args = ['serve', '--json', '--port', '0', '--log-level', 'info', '--progress-log-ms', '0', '--catalog-poll-ms', '50'];
  const dirs = ['--data-dir', join(run, 'replica', 'data'), '--snapshots-dir', join(run, 'replica', 'snapshots')];
  const child = stoppedWithBench(
    spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args, ...dirs, '--object-store', objectStore], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  const opened: number[] = [];
  const url = new Promise<string>((done) => {
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) {
        if (!line.startsWith('{')) continue;
        const entry = JSON.parse(line) as { url?: string; msg?: string; open_ms?: number };
        if (entry.url) done(entry.url);
        if (entry.msg === 'catalog snapshot opened for serving') opened.push(entry.open_ms!);
      }
    });
  });
  return { child, url, opened };
}

/** Milliseconds from the moment catalog/LATEST stops naming `before` to the replica serving what it names. */
async function timeFlip(store: ObjectStore, before: string, serving: () => Promise<string | null>): Promise<number> {
  let flipped: number | null = null;
  for (;;) {
    const latest = (await store.get('catalog/LATEST'))?.toString().trim();
    if (flipped === null && latest !== before && latest !== undefined) flipped = performance.now();
    if (flipped !== null && (await serving()) === latest) return performance.now() - flipped;
    await sleep(50);
  }
}

async function main(): Promise<void> {
  const cache = join(ROOT, 'bench', '.cache');
  const corpus = join(cache, `corpus-${jobs}-seed${seed}-2days`);
  if (!corpusIsCurrent(corpus)) {
    process.stderr.write(`generating ${jobs.toLocaleString('en-US')} jobs over 2 days into ${corpus} ...\n`);
    await runCliJson(['generate', '--jobs', String(jobs), '--seed', String(seed), '--days', '2', '--out', corpus, '--force']);
  }
  const run = join(cache, `replica-${jobs}`);
  await rm(run, { recursive: true, force: true });
  await mkdir(run, { recursive: true });
  const s3 = await startS3();
  const store = s3.store('bench');
  const objectStore = s3.url('bench');
  const publisher = [
    '--snapshots-dir',
    join(run, 'publisher', 'snapshots'),
    '--data-dir',
    join(run, 'publisher', 'data'),
    '--object-store',
    objectStore,
  ];
  let replica: ReturnType<typeof spawn> | undefined;
  try {
    process.stderr.write('publishing day 1 into the object store ...\n');
    // The store runs in this process: its CPU time while day 1 publishes is the store's share of the
    // machine's 2 cores (a real S3 or MinIO does that work elsewhere).
    const storeCpu = process.cpuUsage();
    const day1 = (await runCliJson(['publish', '--input', join(corpus, 'day-001'), ...publisher], s3.env)) as {
      duration_s: number;
      peak_rss_gib: number;
      watermark: string;
    };
    const { user, system } = process.cpuUsage(storeCpu);

    const started = performance.now();
    const replicaRun = startReplica(run, objectStore, s3.env);
    replica = replicaRun.child;
    const { opened } = replicaRun;
    const url = await replicaRun.url;
    const serving = async () =>
      ((await (await fetch(`${url}/healthz`)).json()) as { catalog: { watermark: string | null } }).catalog.watermark;
    while ((await serving()) !== day1.watermark) await sleep(50);
    const coldStart = (performance.now() - started) / 1000;

    process.stderr.write('publishing day 2 while the replica serves day 1 ...\n');
    const publishing = runCliJson(['publish', '--input', join(corpus, 'day-002'), ...publisher], s3.env) as Promise<{
      duration_s: number;
      peak_rss_gib: number;
      watermark: string;
    }>;
    const flip = await timeFlip(store, day1.watermark, serving);
    const day2 = await publishing;
    const objects = await store.list('');
    const result = {
      jobs,
      machine: '2 cores, 24 GiB (shared)',
      publish_day1: {
        duration_s: day1.duration_s,
        peak_rss_gib: day1.peak_rss_gib,
        store_cpu_s: Number(((user + system) / 1e6).toFixed(1)),
      },
      publish_day2: { duration_s: day2.duration_s, peak_rss_gib: day2.peak_rss_gib },
      replica_cold_start_s: Number(coldStart.toFixed(1)),
      replica_flip_to_serving_s: Number((flip / 1000).toFixed(1)),
      /** Of which the open (tables, documents, indexes read), per publication opened; the rest is the download and the feed. */
      replica_open_s: opened.map((ms) => Number((ms / 1000).toFixed(1))),
      store: { objects: objects.length, gib: Number((objects.reduce((n, o) => n + o.size, 0) / 2 ** 30).toFixed(2)) },
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    await mkdir(join(ROOT, 'bench', 'results'), { recursive: true });
    await writeFile(
      join(ROOT, 'bench', 'results', `replica-${new Date().toISOString().replace(/[:.]/g, '-')}.json`),
      `${JSON.stringify(result, null, 2)}\n`,
    );
  } finally {
    replica?.kill('SIGTERM');
    await s3.stop();
  }
}

await main();
