import { expect } from 'chai';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { seededDataDir, tempDir } from '../support/app.js';
import { ApiClient } from '../support/client.js';
import { runCli, startServer, type RunningServer } from '../support/cli.js';

describe('CLI: accounts and keys', function () {
  this.timeout(120_000);
  let root: string;
  let dataDir: string;
  let server: RunningServer | undefined;

  before(async () => {
    root = await tempDir('cli');
    dataDir = await seededDataDir(join(root, 'data'));
  });
  after(async () => {
    await server?.stop();
    await rm(root, { recursive: true, force: true });
  });

  const cli = async (...args: string[]) => {
    const result = await runCli([...args, '--data-dir', dataDir]);
    expect(result.code, `${args.join(' ')}\n${result.stderr}`).to.equal(0);
    return result;
  };

  it('creates an account and a key, the API accepts the key, and after revocation answers 401', async () => {
    const account = JSON.parse((await cli('accounts', 'create', '--plan', 'paid-5k', '--name', 'Acme', '--json')).stdout) as {
      account_id: string;
      plan: string;
      subscription: string;
    };
    expect(account).to.include({ plan: 'paid-5k', subscription: 'active' });
    expect(account.account_id).to.match(/^acct_[a-z2-7]{16}$/);

    const issued = JSON.parse((await cli('keys', 'create', '--account', account.account_id, '--json')).stdout) as {
      key: string;
      key_id: string;
    };
    expect(issued.key).to.match(/^jps_live_[a-z2-7]{16}\.[A-Za-z0-9_-]{43}$/);

    server = await startServer(['--data-dir', dataDir, '--snapshots-dir', join(root, 'snapshots')]);
    const api = new ApiClient(server.url);
    expect((await api.put('/v1/account/overage', { enabled: true }, { key: issued.key })).status).to.equal(200);

    // With the server holding the embedded store, the CLI sends its commands through the server.
    const revoked = await cli('keys', 'revoke', issued.key_id, '--json');
    expect(revoked.stderr).to.include('running server');
    expect((JSON.parse(revoked.stdout) as { revoked_at: string | null }).revoked_at).to.be.a('string');
    const res = await api.put<{ error: { code: string } }>('/v1/account/overage', { enabled: true }, { key: issued.key });
    expect(res.status).to.equal(401);
    expect(res.body.error.code).to.equal('invalid_api_key');

    const listed = JSON.parse((await cli('keys', 'list', '--account', account.account_id, '--json')).stdout) as { key_id: string }[];
    expect(listed.map((k) => k.key_id)).to.deep.equal([issued.key_id]);
    expect(JSON.stringify(listed)).not.to.include(issued.key.split('.')[1]);
  });

  it('changes plan and subscription with accounts set, also through the running server', async () => {
    const created = JSON.parse((await cli('accounts', 'create', '--plan', 'free', '--json')).stdout) as {
      account_id: string;
      subscription: string;
    };
    expect(created.subscription).to.equal('none');
    const changed = JSON.parse(
      (await cli('accounts', 'set', created.account_id, '--plan', 'paid-25k', '--subscription', 'active', '--json')).stdout,
    ) as {
      plan: string;
      subscription: string;
    };
    expect(changed).to.include({ plan: 'paid-25k', subscription: 'active' });
    const funded = JSON.parse(
      (await cli('accounts', 'set', created.account_id, '--billing-model', 'requests', '--prepaid', '12.5', '--json')).stdout,
    ) as { billing_model: string; prepaid_usd: number };
    expect(funded).to.include({ billing_model: 'requests', prepaid_usd: 12.5 });
    const refused = await runCli(['accounts', 'set', created.account_id, '--prepaid', '1.234', '--data-dir', dataDir]);
    expect(refused.code).to.equal(2);
    expect(refused.stderr).to.include('--prepaid');
    const table = (await cli('accounts', 'list')).stdout;
    expect(table).to.match(/account_id\s+name\s+plan/);
    expect(table).to.include(created.account_id);
  });

  it('refuses a second server on the same data folder with a clear message', async () => {
    const second = await runCli(['serve', '--port', '0', '--data-dir', dataDir]);
    expect(second.code).to.equal(1);
    expect(second.stderr).to.include('already serving the data folder');
  });

  it('drains and exits 0 on SIGTERM, and the CLI then opens the store itself', async () => {
    expect(await server!.stop()).to.equal(0);
    server = undefined;
    const listed = await cli('accounts', 'list', '--json');
    expect(listed.stderr).not.to.include('running server');
    expect((JSON.parse(listed.stdout) as unknown[]).length).to.equal(2);
  });

  it('explains bad usage with exit code 2, and every command has --help', async () => {
    const missing = await runCli(['accounts', 'create', '--data-dir', dataDir]);
    expect(missing.code).to.equal(2);
    expect(missing.stderr).to.include('--plan is required');
    const wrong = await runCli(['accounts', 'create', '--plan', 'gold', '--data-dir', dataDir]);
    expect(wrong.code).to.equal(2);
    expect(wrong.stderr).to.include('--plan must be one of free, paid-5k');
    const unknownAccount = await runCli(['keys', 'create', '--account', 'acct_nope', '--data-dir', dataDir]);
    expect(unknownAccount.code).to.equal(1);
    expect(unknownAccount.stderr).to.include('no account has the id acct_nope');
    for (const command of ['serve', 'accounts create', 'accounts list', 'accounts set', 'keys create', 'keys list', 'keys revoke']) {
      const help = await runCli([...command.split(' '), '--help']);
      expect(help.code, command).to.equal(0);
      expect(help.stdout, command).to.include(`Usage: npm run cli -- ${command}`);
    }
  });
});
