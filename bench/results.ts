// Where a benchmark's figures go: one JSON file a run under bench/results/ (kept out of git).

import { mkdir, writeFile } from 'node:fs/promises';

/** Writes `figures` to bench/results/<name>-<time>.json (no name: <time>.json) and prints where. */
export async function writeResults(name: string | null, figures: unknown): Promise<void> {
  await mkdir(new URL('./results/', import.meta.url), { recursive: true });
  const at = new Date().toISOString().replace(/[:.]/g, '-');
  const file = new URL(`./results/${name ? `${name}-` : ''}${at}.json`, import.meta.url);
  await writeFile(file, JSON.stringify(figures, null, 2));
  console.log(`\nwritten to ${file.pathname}`);
}
