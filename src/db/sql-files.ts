// Loads named SQL from sql/*.sql: a block begins with a line `-- name: <name>` and runs to the next one.
// A block may hold several statements, each ending with a semicolon at the end of a line.

import { readFileSync } from 'node:fs';

const SQL_DIR = new URL('../../sql/', import.meta.url);

function blocks(file: string): Record<string, string> {
  const text = readFileSync(new URL(file, SQL_DIR), 'utf8');
  const found: Record<string, string> = {};
  for (const block of text.split(/^-- name: */m).slice(1)) {
    const newline = block.indexOf('\n');
    found[block.slice(0, newline).trim()] = block
      .slice(newline + 1)
      .replace(/^\s*--.*$/gm, '')
      .trim();
  }
  return found;
}

function check<Name extends string>(file: string, found: Record<string, unknown>, names: readonly Name[]): void {
  for (const name of names) if (!(name in found)) throw new Error(`sql/${file} has no statement named ${name}`);
}

/** One statement per name. */
export function namedQueries<Name extends string>(file: string, names: readonly Name[]): Record<Name, string> {
  const found = blocks(file);
  check(file, found, names);
  const out: Record<string, string> = {};
  for (const [name, sql] of Object.entries(found)) out[name] = sql.replace(/;$/, '');
  return out;
}

/** Several statements per name, in order. */
export function namedScripts<Name extends string>(file: string, names: readonly Name[]): Record<Name, string[]> {
  const found = blocks(file);
  check(file, found, names);
  const out: Record<string, string[]> = {};
  for (const [name, sql] of Object.entries(found)) {
    out[name] = sql
      .split(/;\s*$/m)
      .map((s) => s.trim())
      .filter((s) => s.length > 0);
  }
  return out;
}
