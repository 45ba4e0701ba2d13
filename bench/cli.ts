// Runs the project's CLI as a child process, as an operator would, and reads its --json answer.

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { stoppedWithBench } from './children.js';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));

/**
 * How to start the CLI: from its TypeScript through tsx, or, when the test suite runs the benchmark's smoke
 * run, the suite's transpiled build of it (JPS_TEST_CLI, see test/support/cli-build.ts), which starts sooner.
 */
export const cliCommand = (): string[] => (process.env.JPS_TEST_CLI ? [process.env.JPS_TEST_CLI] : ['--import', 'tsx', 'src/cli/main.ts']);

/** Runs `npm run cli -- <args> --json` with `env` added to this process's; progress goes to this process's stderr. */
export function runCliJson(args: string[], env: Record<string, string> = {}): Promise<Record<string, unknown>> {
  return new Promise((done, fail) => {
    const child = stoppedWithBench(
      spawn(process.execPath, [...cliCommand(), ...args, '--json'], {
        cwd: ROOT,
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'inherit'],
      }),
    );
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('close', (code) =>
      code === 0 ? done(JSON.parse(out) as Record<string, unknown>) : fail(new Error(`cli ${args.join(' ')} exited ${code}`)),
    );
  });
}
