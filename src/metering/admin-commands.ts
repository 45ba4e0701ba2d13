// Operator commands on accounts and keys: run by the CLI on the store, or by the server for a CLI over its admin socket.

import type { StateStore } from '../db/state-store.js';
import { createAccount, findAccount, listAccounts, updateAccount, type AccountChanges, type NewAccount } from './accounts.js';
import { importKey, issueKey, keyIdTaken, KEY_SHAPE, listKeys, parseKey, revokeKey } from './keys.js';
import { OperatorError } from '../shared/operator-error.js';

/** A failure the operator can act on: shown as is, never as a stack trace. */
export class AdminError extends OperatorError {}

export const ADMIN_COMMANDS = {
  'accounts.create': (store: StateStore, input: NewAccount) => createAccount(store, input),
  'accounts.list': (store: StateStore) => listAccounts(store),
  'accounts.set': async (store: StateStore, input: AccountChanges & { account_id: string }) => {
    const { account_id, ...changes } = input;
    const account = await updateAccount(store, account_id, changes);
    if (!account) throw new AdminError(`no account has the id ${account_id}`);
    return account;
  },
  'keys.create': async (store: StateStore, input: { account_id: string; name?: string }) => {
    if (!(await findAccount(store, input.account_id))) throw new AdminError(`no account has the id ${input.account_id}`);
    return issueKey(store, input.account_id, { name: input.name ?? '' });
  },
  'keys.import': async (store: StateStore, input: { account_id: string; key: string; name?: string }) => {
    const key = parseKey(input.key);
    if (!key) throw new AdminError(`the key is malformed: expected ${KEY_SHAPE}`);
    if (!(await findAccount(store, input.account_id))) throw new AdminError(`no account has the id ${input.account_id}`);
    if (await keyIdTaken(store, key.keyId))
      throw new AdminError(`a key with the id ${key.keyId} already exists; a key id names one key only`);
    return importKey(store, input.account_id, key, { name: input.name ?? '' });
  },
  'keys.list': (store: StateStore, input: { account_id?: string }) => listKeys(store, input.account_id),
  'keys.revoke': async (store: StateStore, input: { key_id: string }) => {
    const key = await revokeKey(store, input.key_id);
    if (!key) throw new AdminError(`no key has the id ${input.key_id}`);
    return key;
  },
} as const;

export type AdminCommandName = keyof typeof ADMIN_COMMANDS;
export type AdminInput<N extends AdminCommandName> = Parameters<(typeof ADMIN_COMMANDS)[N]>[1];
export type AdminOutput<N extends AdminCommandName> = Awaited<ReturnType<(typeof ADMIN_COMMANDS)[N]>>;

export function isAdminCommand(name: string): name is AdminCommandName {
  return Object.hasOwn(ADMIN_COMMANDS, name);
}

export async function runAdminCommand<N extends AdminCommandName>(
  store: StateStore,
  name: N,
  input: AdminInput<N>,
): Promise<AdminOutput<N>> {
  const command = ADMIN_COMMANDS[name] as (store: StateStore, input: AdminInput<N>) => Promise<AdminOutput<N>>;
  return command(store, input);
}
