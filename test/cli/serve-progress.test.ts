import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { generateCorpus } from '../../src/catalog/generator/corpus.js';
import { seededDataDir, tempDir } from '../support/app.js';
import { cliEntry, runCli } from '../support/cli.js';

interface LogLine {
  level: number;
  msg: string;
  steps?: { step: string; done?: number; total?: number }[];
  elapsed_s?: number;
}

/** `serve` until it prints where it listens, then SIGTERM: everything it wrote on the way. */
function serveUntilListening(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [...cliEntry(), 'serve', '--json', '--port', '0', ...args], {
      env: { ...process.env, JPS_LOG_LEVEL: 'info' },
    });
    let stdout = '';
    let stderr = '';
    let stopping = false;
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
      if (!stopping && stdout.includes('"demo_key"')) {
        stopping = true;
        child.kill('SIGTERM');
      }
    });
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

describe('serve: progress while a catalog snapshot opens', function () {
  this.timeout(180_000);
  let root: string;

  before(async () => {
    root = await tempDir('progress');
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('logs what it is doing and how far every --progress-log-ms, and npm start (--demo) writes the same lines readable on stderr', async () => {
    // A data folder whose store is already made (the first command's 3 s of making one is not under test here).
    const dirs = ['--data-dir', await seededDataDir(join(root, 'data')), '--snapshots-dir', join(root, 'snapshots')];
    await generateCorpus({ jobs: 1000, seed: 3, days: 1, start: '2026-11-18' }, join(root, 'corpus'), { workers: 0 });
    const published = await runCli(['publish', '--input', join(root, 'corpus', 'day-001'), '--json', ...dirs]);
    expect(published.code, published.stderr).to.equal(0);
    const { watermark } = JSON.parse(published.stdout) as { watermark: string };

    const served = await serveUntilListening(['--demo', '--progress-log-ms', '10', ...dirs]);
    expect(served.code, served.stderr).to.equal(0);
    const logs = served.stdout
      .split('\n')
      .filter((line) => line.startsWith('{"level"'))
      .map((line) => JSON.parse(line) as LogLine);
    const progress = logs.filter((l) => l.msg.startsWith(`opening catalog snapshot ${watermark}: `));
    expect(progress.length, served.stdout).to.be.greaterThan(1);
    for (const line of progress) {
      expect(line.level).to.equal(30);
      expect(line.steps?.length).to.be.greaterThan(0);
      for (const step of line.steps!) expect(step.step).to.be.a('string');
      expect(line.elapsed_s).to.be.a('number');
      expect(line.msg).to.match(/, \d+ s$/);
    }
    // Each line says which steps of the open are under way (which ones a 10 ms tick catches varies).
    for (const line of progress) expect(line.msg).to.match(/text index|serving tables|job ids|job documents|source data|events/);
    const readable = served.stderr.split('\n').filter((line) => line.startsWith('opening catalog snapshot'));
    expect(readable).to.deep.equal(progress.map((l) => l.msg));
  });
});
