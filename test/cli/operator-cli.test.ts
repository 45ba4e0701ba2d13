import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { seededDataDir, tempDir } from '../support/app.js';
import { runCli, type CliResult } from '../support/cli.js';

const PACKAGE = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
  bin?: Record<string, string>;
};

/** The `jps` command of package.json's bin, run as npx runs it: the file itself, through its #! line. */
async function runBin(args: string[]): Promise<CliResult> {
  const bin = PACKAGE.bin?.jps;
  expect(bin, 'package.json has a bin entry "jps"').to.be.a('string');
  try {
    const { stdout, stderr } = await promisify(execFile)(join(process.cwd(), bin!), args);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** The first line names the problem; no stack trace follows. */
function expectOneLineError(result: CliResult, first: string | RegExp): void {
  expect(result.code, result.stderr).to.equal(2);
  const [line] = result.stderr.split('\n');
  if (typeof first === 'string') expect(line).to.include(first);
  else expect(line).to.match(first);
  expect(result.stderr).not.to.match(/^\s+at /m);
}

describe('CLI: the operator surface', function () {
  this.timeout(120_000);
  let root: string;

  before(async () => {
    root = await tempDir('operator');
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('prints the package version with --version and version', async () => {
    for (const args of [['--version'], ['version']]) {
      const result = await runCli(args);
      expect(result.code, result.stderr).to.equal(0);
      expect(result.stdout).to.equal(`${PACKAGE.version}\n`);
    }
  });

  it('suggests the command meant by a mistyped one, without repeating the arguments', async () => {
    const typo = await runCli(['acounts', 'list', '--json']);
    expectOneLineError(typo, 'unknown command "acounts list"; did you mean "accounts list"?');
    expectOneLineError(await runCli(['keys', 'revok', 'abc']), 'did you mean "keys revoke"?');
    expectOneLineError(await runCli(['serv', '--port', '0']), 'did you mean "serve"?');
    const secret = await runCli(['keys', 'imprt', '--key', 'jp_live_secret']);
    expect(secret.stderr).not.to.include('jp_live_secret');
    expect((await runCli(['frobnicate'])).stderr.split('\n')[0]).to.equal('unknown command "frobnicate"');
  });

  it('suggests the option meant by a mistyped flag', async () => {
    expectOneLineError(await runCli(['accounts', 'list', '--jsn']), 'accounts list: unknown option --jsn; did you mean --json?');
    expectOneLineError(await runCli(['serve', '--prot', '9000']), 'serve: unknown option --prot; did you mean --port?');
    expectOneLineError(await runCli(['accounts', 'create', '--plan', 'paid_25k']), 'did you mean "paid-25k"?');
  });

  it('refuses a bad setting in one line and the usage, exit code 2, from a flag, the environment, and npm start', async () => {
    const flag = await runCli(['serve', '--log-level', 'verbose', '--data-dir', join(root, 'data')]);
    expectOneLineError(
      flag,
      /^serve: --log-level must be one of fatal, error, warn, info, debug, trace, silent \(e\.g\. --log-level info\); got "verbose"$/,
    );
    expect(flag.stderr).to.include('Usage: npm run cli -- serve');
    // What `npm start -- --log-level verbose` runs: refused before the demo catalog is built.
    expectOneLineError(
      await runCli(['serve', '--demo', '--log-level', 'verbose', '--data-dir', join(root, 'data')]),
      '--log-level must be one of',
    );
    expectOneLineError(
      await runCli(['accounts', 'list', '--data-dir', join(root, 'data')], { JPS_LOG_LEVEL: 'verbose' }),
      'JPS_LOG_LEVEL must be one of',
    );
    expectOneLineError(await runCli(['serve', '--port', 'eighty']), 'serve: --port must be a whole number');
    // Help needs no valid settings.
    expect((await runCli(['serve', '--help'], { JPS_LOG_LEVEL: 'verbose' })).code).to.equal(0);
  });

  it('runs as the jps command of package.json, --json before or after the command giving exactly one JSON document on stdout', async () => {
    const dataDir = await seededDataDir(join(root, 'bin-data'));
    const created = await runBin(['--json', 'accounts', 'create', '--plan', 'free', '--data-dir', dataDir]);
    expect(created.code, created.stderr).to.equal(0);
    expect((JSON.parse(created.stdout) as { plan: string }).plan).to.equal('free');
    expect(created.stdout.trimEnd().split('\n')).to.have.length(1);
    const listed = await runBin(['accounts', 'list', '--data-dir', dataDir, '--json']);
    expect(listed.code, listed.stderr).to.equal(0);
    expect(JSON.parse(listed.stdout)).to.have.length(1);
    expect(listed.stdout.trimEnd().split('\n')).to.have.length(1);
    expect((await runBin(['--version'])).stdout).to.equal(`${PACKAGE.version}\n`);
  });
});
