// Bench accounts: `tsx bench/accounts.ts <data-dir> <n>` creates n paid-500k accounts with a key each in
// the embedded store of <data-dir> and prints their keys as a JSON array. The load driver spreads its
// requests over them: one account's request window (60 a minute) would refuse almost every request of
// a benchmark, and the window is the product's rule, not something to switch off.

import { loadConfig } from '../src/config.js';
import { openState } from '../src/db/open-state.js';
import { createAccount } from '../src/metering/accounts.js';
import { issueKey } from '../src/metering/keys.js';

const [dataDir, count] = process.argv.slice(2);
const state = await openState({ ...loadConfig({}, {}), dataDir: dataDir! }, { role: 'cli' });
try {
  const keys: string[] = [];
  for (let i = 0; i < Number(count); i++) {
    const account = await createAccount(state.store, { plan: 'paid-500k', name: `bench-${i}` });
    keys.push((await issueKey(state.store, account.account_id)).key);
  }
  process.stdout.write(JSON.stringify(keys));
} finally {
  await state.close();
}
