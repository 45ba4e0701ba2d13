// The service under benchmark: the real server in its own process (so the load driver does not share
// its event loop), on a free port, serving the benchmark's catalog, with an account and a key.

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { cliCommand, ROOT } from './cli.js';
import { RUN_PER_KEY } from './measure.js';
import { stoppedWithBench } from './children.js';

export interface BenchService {
  url: string;
  key: string;
  /** Keys of as many accounts: the load driver spreads requests over them (see bench/accounts.ts). */
  keys: string[];
  pid: number;
  close(): Promise<void>;
}

/** The most requests a second the load reaches (four clients on the cheapest route), with room to spare. */
const PEAK_PER_SECOND = 5000;

/**
 * Accounts enough for the load: each admits 60 requests a minute, one of which its key's introduction
 * takes (introduce), and is sent RUN_PER_KEY of them in a row; the load may run at its peak for a minute,
 * or for `loadSeconds` when the whole run is shorter (the smoke run: about ten seconds).
 */
export const accountsFor = (loadSeconds: number) => Math.ceil((PEAK_PER_SECOND * Math.min(60, loadSeconds)) / RUN_PER_KEY);

/** `accounts`: how many accounts besides the first to make (`keys`); by default, enough for `loadSeconds` of load. */
export async function startBenchService(
  dirs: { snapshotsDir: string; dataDir: string },
  loadSeconds = 60,
  accounts = accountsFor(loadSeconds),
): Promise<BenchService> {
  const data = ['--data-dir', dirs.dataDir];
  // The first account's key is the service's own; one process makes them all (the first opening of the store is the slow part).
  const [key, ...keys] = await new Promise<string[]>((resolve, reject) => {
    const maker = stoppedWithBench(
      spawn(process.execPath, ['--import', 'tsx', 'bench/accounts.ts', dirs.dataDir, String(accounts + 1)], {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'inherit'],
      }),
    );
    let out = '';
    maker.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    maker.on('close', (code) =>
      code === 0 ? resolve(JSON.parse(out) as string[]) : reject(new Error(`bench/accounts.ts exited ${code}`)),
    );
  });
  const child = stoppedWithBench(
    spawn(
      process.execPath,
      [
        ...serverNodeArgs(),
        ...cliCommand(),
        'serve',
        '--json',
        '--port',
        '0',
        '--log-level',
        'silent',
        ...data,
        '--snapshots-dir',
        dirs.snapshotsDir,
      ],
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    ),
  );
  const [line] = (await once(child.stdout, 'data')) as [Buffer];
  const { url } = JSON.parse(line.toString()) as { url: string };
  await introduce(url, [key!, ...keys]);
  return {
    url,
    key: key!,
    keys,
    pid: child.pid!,
    async close() {
      child.kill('SIGTERM');
      await once(child, 'close');
    },
  };
}

/**
 * One request with each key before any is measured: a server remembers the callers it has authenticated
 * (src/metering/callers.ts), as it does a customer's key after its first call, so the figures are those of
 * a known caller. Without it a scenario's requests, spread over thousands of keys, were mostly a key's
 * first (a look-up in the store each, about 1 ms more).
 */
async function introduce(url: string, keys: string[]): Promise<void> {
  let next = 0;
  const client = async () => {
    while (next < keys.length) {
      const key = keys[next++]!;
      const res = await fetch(`${url}/v1/account`, { headers: { authorization: `Bearer ${key}` } });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`GET /v1/account with a bench key answered ${res.status}`);
    }
  };
  await Promise.all(Array.from({ length: 4 }, client));
}

/**
 * Node's own flags for the server's process, from BENCH_SERVER_NODE_ARGS (space-separated): to profile the
 * server under a scenario's load, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` (Node refuses these in NODE_OPTIONS).
 */
const serverNodeArgs = (): string[] => process.env.BENCH_SERVER_NODE_ARGS?.split(/\s+/).filter(Boolean) ?? [];

export const benchDirs = (root: string) => ({ snapshotsDir: join(root, 'snapshots'), dataDir: join(root, 'data') });
