// Runs the real CLI as a child process, the way an operator does.

import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/**
 * A test's CLI process lives seconds: V8 compiles the embedded store's WebAssembly with its baseline
 * compiler only, and does not spend a second of CPU at every start optimising code that will not run
 * long enough to repay it (serve: 3.2-3.4 s of CPU to listening, one request and exit, against 3.9-4.6 s).
 * The code and what it does are the same; the benchmarks and `npm start` run with V8's defaults.
 */
const CHILD_NODE_FLAGS = ['--liftoff-only'];

/** The CLI: src/ built once for the run (cli-build.ts) when the run has that fixture, else src/ through tsx. */
export const cliEntry = (): string[] => [
  ...CHILD_NODE_FLAGS,
  ...(process.env.JPS_TEST_CLI ? [process.env.JPS_TEST_CLI] : ['--import', 'tsx', 'src/cli/main.ts']),
];

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI to its end; `input`, when given, is its stdin (as `... --key - < file` gives it). */
export function runCli(args: string[], env: Record<string, string> = {}, input?: string): Promise<CliResult> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [...cliEntry(), ...args], { cwd: ROOT, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
    if (input !== undefined) child.stdin.end(input);
  });
}

export interface RunningServer {
  url: string;
  process: ChildProcess;
  /** Sends SIGTERM and resolves with the exit code once the server has drained and exited. */
  stop(): Promise<number | null>;
  /** What it has written on stdout so far: where it listens, and its log lines at the level JPS_LOG_LEVEL lets through. */
  output(): string;
}

/** Starts `serve --json --port 0 ...` and resolves once it prints where it listens. */
export function startServer(args: string[], env: Record<string, string> = {}): Promise<RunningServer> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [...cliEntry(), 'serve', '--json', '--port', '0', ...args], {
      cwd: ROOT,
      env: { ...process.env, JPS_LOG_LEVEL: 'silent', ...env },
    });
    let stdout = '';
    let stderr = '';
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
      const line = stdout.split('\n').find((l) => l.startsWith('{"url"'));
      if (line) {
        const { url } = JSON.parse(line) as { url: string };
        done({
          url,
          process: child,
          stop: () => {
            child.kill('SIGTERM');
            return exited;
          },
          output: () => stdout,
        });
      }
    });
    void exited.then((code) => fail(new Error(`serve exited with ${code} before listening:\n${stderr}`)));
  });
}
