// The demo of `npm start`: one demo account and key, kept in the data folder so every start prints the same key.

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { StateStore } from '../db/state-store.js';
import { createAccount } from '../metering/accounts.js';
import { authenticate, issueKey } from '../metering/keys.js';

const DEMO_KEY_FILE = 'demo-key.json';

interface DemoKey {
  account_id: string;
  key: string;
}

async function readDemoKey(dataDir: string): Promise<DemoKey | undefined> {
  try {
    return JSON.parse(await readFile(join(dataDir, DEMO_KEY_FILE), 'utf8')) as DemoKey;
  } catch {
    return undefined;
  }
}

/** Returns the demo key, creating the demo account and key on first run (or when the old key was revoked). */
export async function ensureDemoKey(store: StateStore, dataDir: string): Promise<DemoKey & { created: boolean }> {
  const saved = await readDemoKey(dataDir);
  if (saved && (await authenticate(store, saved.key))) return { ...saved, created: false };
  const account = await createAccount(store, { name: 'demo', plan: 'paid-100k' });
  const issued = await issueKey(store, account.account_id, { name: 'demo' });
  const demo = { account_id: account.account_id, key: issued.key };
  await writeFile(join(dataDir, DEMO_KEY_FILE), JSON.stringify(demo, null, 2), { mode: 0o600 });
  return { ...demo, created: true };
}

export function demoBanner(url: string, demo: DemoKey & { created: boolean }, dataDir: string): string {
  return [
    '',
    `Job postings data service listening on ${url}`,
    `Demo account ${demo.account_id}${demo.created ? ' (created now)' : ''}; its API key (kept in ${join(dataDir, DEMO_KEY_FILE)}):`,
    '',
    `  ${demo.key}`,
    '',
    'Try:',
    `  curl -s -H "Authorization: Bearer ${demo.key}" "${url}/v1/jobs?limit=3"`,
    `  curl -s ${url}/healthz`,
    '',
    'Stop with Ctrl-C (SIGINT) or SIGTERM: requests in flight finish first.',
    '',
  ].join('\n');
}
