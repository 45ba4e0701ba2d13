// `keys create|list|revoke|import`: API keys of an account. The whole key is printed once, at creation;
// an imported key (issued by the older system) is never printed.

import { text } from 'node:stream/consumers';
import { KEY_SHAPE, parseKey } from '../metering/keys.js';
import { JSON_OPTION, UsageError, type Command } from './command.js';
import { print, table } from './output.js';
import { runOnStore } from './state-access.js';

const STORE_SETTINGS = ['dataDir', 'databaseUrl'] as const;

export const keysCreate: Command = {
  name: 'keys create',
  summary: 'Creates an API key for an account and prints it once: only a hash of its secret is kept.',
  options: [
    { name: 'account', value: 'account_id', required: true, help: 'the account the key belongs to' },
    { name: 'name', value: 'text', help: 'a name for people, e.g. where the key is used' },
    JSON_OPTION,
  ],
  settings: [...STORE_SETTINGS],
  async run({ options, config, json }) {
    const key = await runOnStore(config, 'keys.create', {
      account_id: options.account as string,
      ...(typeof options.name === 'string' ? { name: options.name } : {}),
    });
    print(json, key, () =>
      [`API key ${key.key_id} for account ${key.account_id}:`, '', `  ${key.key}`, '', 'Store it now: it cannot be shown again.'].join(
        '\n',
      ),
    );
  },
};

export const keysList: Command = {
  name: 'keys list',
  summary: 'Lists API keys (ids and state, never secrets), of one account or of all.',
  options: [{ name: 'account', value: 'account_id', help: 'only this account' }, JSON_OPTION],
  settings: [...STORE_SETTINGS],
  async run({ options, config, json }) {
    const keys = await runOnStore(config, 'keys.list', typeof options.account === 'string' ? { account_id: options.account } : {});
    print(json, keys, () =>
      table(
        keys.map((k) => ({ ...k, name: k.name || null })),
        ['key_id', 'account_id', 'prefix', 'name', 'created_at', 'revoked_at'],
      ),
    );
  },
};

export const keysRevoke: Command = {
  name: 'keys revoke',
  summary: 'Revokes an API key: from now on it answers 401 invalid_api_key.',
  positionals: '<key_id>',
  options: [JSON_OPTION],
  settings: [...STORE_SETTINGS],
  async run({ positionals, config, json }) {
    const [keyId] = positionals;
    if (!keyId || positionals.length > 1) throw new UsageError('give exactly one <key_id>');
    const key = await runOnStore(config, 'keys.revoke', { key_id: keyId });
    print(json, key, () => `Revoked key ${key.key_id} of account ${key.account_id} at ${key.revoked_at}.`);
  },
};

/** The key given with --key, or read from stdin with `--key -` so that it stays out of the shell's history. */
async function keyArgument(value: string): Promise<string> {
  if (value !== '-') return value;
  if (process.stdin.isTTY) process.stderr.write('Paste the key, then press Enter and Ctrl-D:\n');
  return (await text(process.stdin)).trim();
}

export const keysImport: Command = {
  name: 'keys import',
  summary:
    'Imports an API key of the older system (jp_live_..., issued before October 2026) for an account. Only a hash of its secret is kept; the key works as before. `--key -` reads it from stdin.',
  options: [
    { name: 'account', value: 'account_id', required: true, help: 'the account the key belongs to' },
    { name: 'key', value: 'key|-', required: true, help: 'the whole key; "-" reads it from stdin (keeps it out of the shell history)' },
    { name: 'name', value: 'text', help: 'a name for people, e.g. where the key is used' },
    JSON_OPTION,
  ],
  settings: [...STORE_SETTINGS],
  async run({ options, config, json }) {
    const key = await keyArgument(options.key as string);
    if (!parseKey(key)) throw new UsageError(`the key is malformed: expected ${KEY_SHAPE}`);
    const imported = await runOnStore(config, 'keys.import', {
      account_id: options.account as string,
      key,
      ...(typeof options.name === 'string' ? { name: options.name } : {}),
    });
    print(
      json,
      imported,
      () => `Imported key ${imported.key_id} (${imported.prefix}) for account ${imported.account_id}; it authenticates as before.`,
    );
  },
};
