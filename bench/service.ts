// The service under benchmark: the real server in its own process (so the load driver does not share
// its event loop), on a free port, serving the benchmark's catalog, with an account and a key.

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { runCliJson, ROOT } from './cli.js';

export interface BenchService {
  url: string;
  key: string;
  /** Keys of as many accounts: the load driver spreads requests over them (see bench/accounts.ts). */
  keys: string[];
  pid: number;
  close(): Promise<void>;
}

/** Accounts for the load: 60 requests a minute each, 2,000 requests a second at most. */
const ACCOUNTS = 2000;

export async function startBenchService(dirs: { snapshotsDir: string; dataDir: string }): Promise<BenchService> {
  const data = ['--data-dir', dirs.dataDir];
  const account = await runCliJson(['accounts', 'create', '--plan', 'paid-500k', '--name', 'bench', ...data]);
  const issued = await runCliJson(['keys', 'create', '--account', String(account.account_id), ...data]);
  const keys = await new Promise<string[]>((resolve, reject) => {
    const maker = spawn(process.execPath, ['--import', 'tsx', 'bench/accounts.ts', dirs.dataDir, String(ACCOUNTS)], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    maker.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    maker.on('close', (code) =>
      code === 0 ? resolve(JSON.parse(out) as string[]) : reject(new Error(`bench/accounts.ts exited ${code}`)),
    );
  });
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/cli/main.ts',
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
  );
  const [line] = (await once(child.stdout, 'data')) as [Buffer];
  const { url } = JSON.parse(line.toString()) as { url: string };
  return {
    url,
    key: String(issued.key),
    keys,
    pid: child.pid!,
    async close() {
      child.kill('SIGTERM');
      await once(child, 'close');
    },
  };
}

export const benchDirs = (root: string) => ({ snapshotsDir: join(root, 'snapshots'), dataDir: join(root, 'data') });
