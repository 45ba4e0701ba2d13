// PostgreSQL as the oracle of the search tests: a database with the jps_english configuration, texts from a
// generated corpus, and batched calls so that thousands of comparisons take one round trip.

import { readdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { generateCorpus } from '../../../src/catalog/generator/corpus.js';
import { tempDir } from '../../support/app.js';
import { testPostgres, type TestPostgres } from '../../support/postgres.js';

export const CONFIGURATION = `
  CREATE EXTENSION IF NOT EXISTS unaccent;
  CREATE TEXT SEARCH CONFIGURATION jps_english (COPY = english);
  ALTER TEXT SEARCH CONFIGURATION jps_english ALTER MAPPING FOR hword, hword_part, word WITH unaccent, english_stem;`;

/** The oracle database, on the test server it was made on (one a test run: the fixture of test/support/postgres.ts). */
let database: { server: TestPostgres; url: Promise<string> } | undefined;

/** A new connection to the oracle database (created, and configured, on first use). Close it with end(). */
export async function connectOracle(): Promise<pg.Client> {
  const server = await testPostgres();
  if (database?.server !== server) database = { server, url: oracleDatabase(server) };
  const client = new pg.Client(await database.url);
  client.on('notice', () => undefined);
  await client.connect();
  return client;
}

async function oracleDatabase(server: TestPostgres): Promise<string> {
  const url = await server.database('search_analyze');
  const client = new pg.Client(url);
  await client.connect();
  try {
    const { rows } = await client.query<{ encoding: string; ctype: string }>(
      'SELECT pg_encoding_to_char(encoding) AS encoding, datctype AS ctype FROM pg_database WHERE datname = current_database()',
    );
    // The character tables of src/search/charclass.ts were generated on such a database; another ctype
    // classifies non-ASCII letters differently, which would make the oracle disagree for the wrong reason.
    if (rows[0]?.encoding !== 'UTF8' || !/utf-?8/i.test(rows[0].ctype)) {
      throw new Error(`the oracle database must be UTF8 with a UTF-8 ctype, not ${JSON.stringify(rows[0])}`);
    }
    await client.query(CONFIGURATION);
  } finally {
    await client.end();
  }
  return url;
}

export interface CorpusTexts {
  titles: string[];
  descriptions: string[];
  html: string[];
}

let corpus: Promise<CorpusTexts> | undefined;

/** Distinct titles and descriptions (text and HTML) of a generated corpus of 3,000 jobs, in a stable order. */
export function corpusTexts(): Promise<CorpusTexts> {
  corpus ??= (async () => {
    const root = await tempDir('search-corpus');
    try {
      await generateCorpus({ jobs: 3000, seed: 11, days: 1, start: '2026-11-18' }, join(root, 'corpus'), { workers: 0 });
      const dir = join(root, 'corpus', 'day-001', 'postings');
      const titles = new Set<string>();
      const descriptions = new Set<string>();
      const html = new Set<string>();
      for (const file of readdirSync(dir).sort()) {
        for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
          if (!line) continue;
          const p = JSON.parse(line) as { title: string | null; description_text: string | null; description_html: string | null };
          if (p.title) titles.add(p.title);
          if (p.description_text) descriptions.add(p.description_text);
          if (p.description_html) html.add(p.description_html);
        }
      }
      return { titles: [...titles], descriptions: [...descriptions], html: [...html] };
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  })();
  return corpus;
}

/** Runs `sql` (which reads the texts as $1::text[] WITH ORDINALITY) over `inputs` in chunks; rows keep their order. */
export async function batched<R extends pg.QueryResultRow>(client: pg.Client, sql: string, inputs: unknown[], chunk = 1000): Promise<R[]> {
  const rows: R[] = [];
  for (let i = 0; i < inputs.length; i += chunk) rows.push(...(await client.query<R>(sql, [inputs.slice(i, i + chunk)])).rows);
  return rows;
}

/** A small deterministic random generator (xorshift), so that generated cases are the same on every run. */
export function random(seed: number): { next(): number; int(n: number): number; pick<T>(items: readonly T[]): T } {
  let state = seed >>> 0 || 1;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4294967296;
  };
  return { next, int: (n) => Math.floor(next() * n), pick: (items) => items[Math.floor(next() * items.length)]! };
}

/** Strings built from pieces that exercise the parser: words, accents, numbers, punctuation, hosts, tags. */
// prettier-ignore
export const PIECES = [
  'a', 'the', 'running', 'Café', 'naïve', 'ÉCOLE', 'Straße', 'İstanbul', 'ΣΟΦΙΑ', 'résumé', '1', '42', '-', '+', '.', '/', '@',
  ':', '_', '&', ';', '<', '>', "'", '"', '\\', '=', '#', '~', '%', '?', ' ', '\n', '\t', 'e-mail', 'Mid-Market', '401(k)', '$85,000',
  '24/7', '0-1', '3.5', 'C++', 'C#', '.NET', 'jobs@acme.com', 'https://x.com/a?b=1', 'www.example.org', 'example.com:8080/p', '•',
  '€', '£', '₹', '\u0301', '\u200b', '\u00a0', '\u3000', 'ﬁ', 'Æther', 'co-op', 'state-of-the-art', "don't", '1st', 'v2.3.4',
  '-12.5e3', '½', 'ǅ', '<b>', '</p>', '&amp;', '&#x41;', '<!-- c -->', '<script>x</script>', 'COVID-19', 'x1-y2', '--', '..',
  '/usr/lib', '~/x', '😀', '𝐀', 'ﬀ', 'Ⅻ', '٣', '१२', 'ا', '中文', '\u0903', 'K-12', 'Wi-Fi', 'e2e', 'O\'Reilly', 'Q3/Q4',
];

export function randomTexts(seed: number, count: number, maxPieces = 14): string[] {
  const r = random(seed);
  const texts: string[] = [];
  for (let k = 0; k < count; k += 1) {
    let s = '';
    const n = 1 + r.int(maxPieces);
    for (let i = 0; i < n; i += 1) s += r.pick(PIECES) + (r.next() < 0.5 ? ' ' : '');
    texts.push(s);
  }
  return texts;
}

/** A document printed as PostgreSQL prints a tsvector (`'lexeme':1,3 'other':2`), for comparing with ::text. */
export function tsvectorText(doc: ReadonlyMap<string, readonly number[]>): string {
  return [...doc.keys()]
    .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
    .map((lexeme) => `'${lexeme.replace(/['\\]/g, (ch) => ch + ch)}':${doc.get(lexeme)!.join(',')}`)
    .join(' ');
}

/** Strings where PostgreSQL's parser does something particular. */
// prettier-ignore
export const TRICKY = [
  'Mid-Market Account Executive', '401(k) match', '$85,000 - $95,000 a year', '24/7 support', '0-1 years', '3.5 GPA',
  'C++ and C# on .NET', 'jobs@acme.com', 'https://careers.acme.com/jobs/123?ref=x', 'www.acme.com', '• Health • Dental',
  '€50,000 £40,000 ₹9,00,000', 'Café naïve résumé Æther', 'Medical-Surgical RN', 'state-of-the-art', "don't stop", 'COVID-19',
  'e-mail', 'Line 1\nLine 2\r\n\tTabbed', 'K-12 Wi-Fi e2e', 'v2.3.4 -12.5e3 1.5e10', '<p>Hello <b>world</b> &amp; more</p>',
  '<script>ignored()</script> kept', 'Straße İstanbul ΣΟΦΙΑ', 'ﬁsh ﬀ Ⅻ ½', 'co-op-era-tion', 'a--b', '-5 +7 ~/bin/x /usr/lib ../up',
  "O'Reilly's", 'Q3/Q4 H1-B 10:30am', 'example.com:8080/path?q=1', 'user_name@example.co.uk', 'x1-y2-z3', 'über-cool', '',
];
