import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { seededDataDir, tempDir } from '../support/app.js';
import { ApiClient } from '../support/client.js';
import { runCli, startServer, type RunningServer } from '../support/cli.js';

/** A key as the older system issued it: `jp_live_`, a 16-character base32 key id, a dot, a 43-character secret. */
function olderKey(keyId = randomKeyId()): string {
  return `jp_live_${keyId}.${randomBytes(32).toString('base64url')}`;
}

function randomKeyId(): string {
  return [...randomBytes(16)].map((b) => 'abcdefghijklmnopqrstuvwxyz234567'[b & 31]).join('');
}

describe('CLI: keys import (keys migrated from the older system)', function () {
  this.timeout(120_000);
  let root: string;
  let dataDir: string;
  let accountId: string;
  let server: RunningServer | undefined;

  before(async () => {
    root = await tempDir('import');
    dataDir = await seededDataDir(join(root, 'data'));
    const created = await runCli(['accounts', 'create', '--plan', 'paid-5k', '--json', '--data-dir', dataDir]);
    accountId = (JSON.parse(created.stdout) as { account_id: string }).account_id;
  });
  after(async () => {
    await server?.stop();
    await rm(root, { recursive: true, force: true });
  });

  const overage = (key: string) => new ApiClient(server!.url).put('/v1/account/overage', { enabled: true }, { key });

  it('imports a jp_live_ key, keeping only its hash, and the API accepts it as a bearer token', async () => {
    const key = olderKey();
    const imported = await runCli(['keys', 'import', '--account', accountId, '--key', key, '--json', '--data-dir', dataDir]);
    expect(imported.code, imported.stderr).to.equal(0);
    const info = JSON.parse(imported.stdout) as { key_id: string; account_id: string; prefix: string };
    expect(info).to.include({ key_id: key.slice(8, 24), account_id: accountId, prefix: 'jp_live_' });
    expect(imported.stdout).not.to.include(key.split('.')[1]);

    server = await startServer(['--data-dir', dataDir, '--snapshots-dir', join(root, 'snapshots')]);
    expect((await overage(key)).status).to.equal(200);
    const wrongSecret = `${key.split('.')[0]}.${randomBytes(32).toString('base64url')}`;
    expect((await overage(wrongSecret)).status).to.equal(401);
  });

  it('reads the key from stdin with --key -, also through the running server', async () => {
    const key = olderKey();
    const imported = await runCli(
      ['keys', 'import', '--account', accountId, '--key', '-', '--name', 'migrated', '--data-dir', dataDir],
      {},
      `${key}\n`,
    );
    expect(imported.code, imported.stderr).to.equal(0);
    expect(imported.stderr).to.include('running server');
    expect(imported.stdout).to.include(key.slice(8, 24)).and.not.include(key.split('.')[1]);
    expect((await overage(key)).status).to.equal(200);
  });

  it('refuses a malformed key with a clear error that does not repeat it', async () => {
    for (const malformed of [
      'jp_live_abc.secret',
      `jp_test_${randomKeyId()}.${randomBytes(32).toString('base64url')}`,
      olderKey().slice(0, -1),
    ]) {
      const refused = await runCli(['keys', 'import', '--account', accountId, '--key', malformed, '--data-dir', dataDir]);
      expect(refused.code, malformed).to.equal(2);
      expect(refused.stderr).to.include('keys import: the key is malformed').and.include('jp_live_<key_id>.<secret>');
      expect(refused.stderr).not.to.include(malformed);
    }
  });

  it('refuses a key whose key id is already taken, and an unknown account', async () => {
    const key = olderKey();
    expect((await runCli(['keys', 'import', '--account', accountId, '--key', key, '--data-dir', dataDir])).code).to.equal(0);
    const again = olderKey(key.slice(8, 24));
    const duplicate = await runCli(['keys', 'import', '--account', accountId, '--key', again, '--data-dir', dataDir]);
    expect(duplicate.code).to.equal(1);
    expect(duplicate.stderr).to.include(`a key with the id ${key.slice(8, 24)} already exists`);
    expect((await overage(again)).status).to.equal(401);
    expect((await overage(key)).status).to.equal(200);
    const unknown = await runCli(['keys', 'import', '--account', 'acct_nope', '--key', olderKey(), '--data-dir', dataDir]);
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.include('no account has the id acct_nope');
  });
});
