// Runs the project's CLI as a child process, as an operator would, and reads its --json answer.

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** Runs `npm run cli -- <args> --json`; progress goes to this process's stderr. */
export function runCliJson(args: string[]): Promise<Record<string, unknown>> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args, '--json'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('close', (code) =>
      code === 0 ? done(JSON.parse(out) as Record<string, unknown>) : fail(new Error(`cli ${args.join(' ')} exited ${code}`)),
    );
  });
}
