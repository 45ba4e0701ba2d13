// Applies sql/migrations/*.sql in name order, once each, under an advisory lock so replicas can race safely;
// then installs the functions of sql/state/functions.sql (CREATE OR REPLACE) whenever that file changed.

import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import type { StateStore } from './state-store.js';

const MIGRATIONS_DIR = new URL('../../sql/migrations/', import.meta.url);
const FUNCTIONS = new URL('../../sql/state/functions.sql', import.meta.url);
const LOCK_KEY = 7_441_001; // any constant shared by every process that migrates this schema

export async function migrate(store: StateStore): Promise<string[]> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith('.sql')).sort();
  return store.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY]);
    await tx.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const done = new Set((await tx.query<{ version: string }>('SELECT version FROM schema_migrations')).map((r) => r.version));
    const applied: string[] = [];
    for (const file of files) {
      if (done.has(file)) continue;
      const sql = await readFile(new URL(file, MIGRATIONS_DIR), 'utf8');
      for (const statement of splitStatements(sql)) await tx.query(statement);
      await tx.query('INSERT INTO schema_migrations (version) VALUES ($1)', [file]);
      applied.push(file);
    }
    const functions = await readFile(FUNCTIONS, 'utf8');
    const version = `functions:${createHash('sha256').update(functions).digest('hex').slice(0, 16)}`;
    if (!(await tx.query('SELECT 1 FROM schema_migrations WHERE version = $1', [version])).length) {
      for (const statement of splitStatements(functions)) await tx.query(statement);
      await tx.query("DELETE FROM schema_migrations WHERE version LIKE 'functions:%'");
      await tx.query('INSERT INTO schema_migrations (version) VALUES ($1)', [version]);
    }
    return applied;
  });
}

/** Splits SQL into statements at semicolons that end a line outside $$-quoted function bodies. */
export function splitStatements(sql: string): string[] {
  const statements: string[] = [];
  let current = '';
  let inBody = false;
  for (const line of sql.split('\n')) {
    if (!inBody && /^\s*--/.test(line)) continue;
    current += `${line}\n`;
    if ((line.match(/\$\$/g)?.length ?? 0) % 2 === 1) inBody = !inBody;
    if (!inBody && /;\s*$/.test(line)) {
      statements.push(current.trim().replace(/;$/, ''));
      current = '';
    }
  }
  if (current.trim()) statements.push(current.trim());
  return statements;
}
