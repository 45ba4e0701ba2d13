// The service under benchmark: the real server in its own process (so the load driver does not share
// its event loop), on a free port with a fresh data folder and an account with a key.

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

export interface BenchService {
  url: string;
  key: string;
  pid: number;
  close(): Promise<void>;
}

function runJson(args: string[]): Promise<Record<string, unknown>> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args, '--json'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('close', (code) => (code === 0 ? done(JSON.parse(out) as Record<string, unknown>) : fail(new Error(`cli ${args.join(' ')} exited ${code}`))));
  });
}

export async function startBenchService(): Promise<BenchService> {
  const root = await mkdtemp(join(tmpdir(), 'jps-bench-'));
  const data = ['--data-dir', join(root, 'data')];
  const account = await runJson(['accounts', 'create', '--plan', 'paid-500k', '--name', 'bench', ...data]);
  const issued = await runJson(['keys', 'create', '--account', String(account.account_id), ...data]);
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--json', '--port', '0', '--log-level', 'silent', ...data, '--snapshots-dir', join(root, 'snapshots')], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(child.stdout, 'data')) as [Buffer];
  const { url } = JSON.parse(line.toString()) as { url: string };
  return {
    url,
    key: String(issued.key),
    pid: child.pid!,
    async close() {
      child.kill('SIGTERM');
      await once(child, 'close');
      await rm(root, { recursive: true, force: true });
    },
  };
}
