// Loads named statements from sql/*.sql: each begins with a line `-- name: <name>` and runs to the next one.

import { readFileSync } from 'node:fs';

const SQL_DIR = new URL('../../sql/', import.meta.url);

export function namedQueries<Name extends string>(file: string, names: readonly Name[]): Record<Name, string> {
  const text = readFileSync(new URL(file, SQL_DIR), 'utf8');
  const found: Record<string, string> = {};
  for (const block of text.split(/^-- name: */m).slice(1)) {
    const newline = block.indexOf('\n');
    const name = block.slice(0, newline).trim();
    found[name] = block.slice(newline + 1).replace(/^\s*--.*$/gm, '').trim().replace(/;$/, '');
  }
  for (const name of names) if (!(name in found)) throw new Error(`sql/${file} has no statement named ${name}`);
  return found;
}
