// The demo of `npm start`: a generated catalog published over three days, and one demo account and key,
// kept in the data folder so every start serves the same catalog and prints the same key.

import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateCorpus } from '../catalog/generator/corpus.js';
import { PublicationMirror } from '../catalog/mirror.js';
import { openStores } from '../storage/stores.js';
import { publish } from '../catalog/publish/publish.js';
import type { Config } from '../config.js';
import type { StateStore } from '../db/state-store.js';
import { createAccount } from '../metering/accounts.js';
import { authenticate, issueKey } from '../metering/keys.js';

const DEMO_KEY_FILE = 'demo-key.json';
const DEMO_CORPUS = { jobs: 20_000, seed: 20261118, days: 3 };

/** Day 1 of the demo corpus, chosen so that the last day's cut-off (06:00 UTC) is the latest one already past. */
export function demoStart(now: Date, days = DEMO_CORPUS.days): string {
  const cutoffHourMs = 6 * 3_600_000;
  const lastDay = Math.floor((now.getTime() - cutoffHourMs) / 86_400_000);
  return new Date((lastDay - (days - 1)) * 86_400_000).toISOString().slice(0, 10);
}

/**
 * Publishes the demo catalog unless a catalog is already published: generates the corpus (once) under
 * the data folder, then publishes its days in order. Progress goes to stderr.
 */
export async function ensureDemoCatalog(config: Config, now = new Date()): Promise<void> {
  const stores = await openStores(config);
  const published = await new PublicationMirror(stores.publications, config.snapshotsDir).latest().finally(() => stores.close());
  if (published) return;
  const corpus = join(config.dataDir, 'demo-corpus');
  if (!existsSync(join(corpus, 'manifest.json'))) {
    process.stderr.write(
      `Generating the demo corpus (${DEMO_CORPUS.jobs.toLocaleString('en-US')} jobs over ${DEMO_CORPUS.days} days) in ${corpus} ...\n`,
    );
    await generateCorpus({ ...DEMO_CORPUS, start: demoStart(now) }, corpus, { force: true });
  }
  for (let day = 1; day <= DEMO_CORPUS.days; day++) {
    const input = join(corpus, `day-${String(day).padStart(3, '0')}`);
    process.stderr.write(`Publishing demo day ${day} of ${DEMO_CORPUS.days} ...\n`);
    const summary = await publish({
      input,
      snapshotsDir: config.snapshotsDir,
      dataDir: config.dataDir,
      objectStore: config.objectStore,
      quiet: true,
    });
    process.stderr.write(
      `  ${summary.watermark}: ${summary.counts.jobs.toLocaleString('en-US')} jobs, events ${JSON.stringify(summary.counts.events)}, ${summary.duration_s} s\n`,
    );
  }
}

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
    `AI agents: MCP over Streamable HTTP at ${url}/mcp with the same key as a bearer token (docs/mcp.md).`,
    '',
    'Stop with Ctrl-C (SIGINT) or SIGTERM: requests in flight finish first.',
    '',
  ].join('\n');
}
