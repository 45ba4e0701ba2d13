// PostgreSQL as the oracle of the API's text search (DESIGN.md 4): a generated corpus is served by
// the app and loaded into PostgreSQL, and seeded random queries drawn from the corpus's own words
// must select the same jobs on both sides. The PostgreSQL side is written from the DESIGN.md
// formulas alone; Boolean queries are generated as trees, rendered once in our syntax for the API
// and once as tsquery operators for PostgreSQL, so no code under test builds the oracle's query.

import { expect } from 'chai';
import pg from 'pg';
import { latestPointer, readPointer, snapshotDir } from '../../src/catalog/layout.js';
import { startTestAppWithCatalog, type TestApp } from '../support/app.js';
import { loadSnapshotIntoPostgres, TS_CONFIG } from '../support/pg-catalog.js';
import { testPostgres } from '../support/postgres.js';

const CFG = `'${TS_CONFIG}'`;
const ALL_CURRENTNESS = 'current,uncertain,not_current';
// Another seed draws other queries (the corpus stays the same): JPS_ORACLE_SEED=7 npx mocha ...
const SEED = Number(process.env.JPS_ORACLE_SEED ?? 20261118);

type TextName = 'title' | 'q' | 'description' | 'title_advanced' | 'description_advanced';
type Field = 'title' | 'description';
type Node =
  { k: 'word' | 'prefix'; w: string } | { k: 'phrase'; words: string[] } | { k: 'and' | 'or'; args: Node[] } | { k: 'not'; arg: Node };

interface TextParam {
  name: TextName;
  value: string;
  /** The tree an advanced value was rendered from. */
  tree?: Node;
}

interface Case {
  kind: string;
  text: TextParam[];
  /** Only current jobs (the API's default) rather than every currentness. */
  currentOnly: boolean;
  sort?: 'updated';
  limit: number;
}

interface Doc {
  id: string;
  title: string;
  description: string | null;
}

/** mulberry32: small, seeded, and the same on every machine. */
class Rng {
  constructor(private state: number) {}
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) | 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

const wordsOf = (text: string | null) => text?.match(/\p{L}+(?:-\p{L}+)*/gu) ?? [];
const tokensOf = (text: string | null) => text?.split(/\s+/).filter((t) => t !== '') ?? [];
const window = <T>(rng: Rng, items: T[], size: number): T[] => {
  const n = Math.min(size, items.length);
  const start = rng.int(items.length - n + 1);
  return items.slice(start, start + n);
};
// Words our syntax reads as operators whatever their case.
const OPERATOR_WORDS = new Set(['and', 'or', 'not']);

const ACCENTS: Record<string, string[]> = {
  a: ['á', 'à', 'â', 'ä'],
  e: ['é', 'è', 'ê', 'ë'],
  i: ['í', 'ï'],
  o: ['ó', 'ô', 'ö'],
  u: ['ú', 'ü'],
  c: ['ç'],
  n: ['ñ'],
};

/** A word with accents (or ß, or a ligature) that contrib/unaccent folds back to it. */
function accentuate(rng: Rng, word: string): string {
  if (word.includes('ss') && rng.chance(0.2)) return word.replace('ss', 'ß');
  if (word.includes('fi') && rng.chance(0.3)) return word.replace('fi', 'ﬁ');
  const spots = [...word].map((ch, i) => [ch.toLowerCase(), i] as const).filter(([ch]) => ch in ACCENTS);
  if (spots.length === 0) return word;
  const [ch, i] = rng.pick(spots);
  const accented = rng.pick(ACCENTS[ch]!);
  return word.slice(0, i) + (word[i] === ch ? accented : accented.toUpperCase()) + word.slice(i + 1);
}

function casing(rng: Rng, text: string): string {
  const r = rng.next();
  return r < 0.6 ? text : r < 0.8 ? text.toLowerCase() : text.toUpperCase();
}

/** The tsquery of a Boolean tree, as PostgreSQL operators over to_tsquery/phraseto_tsquery of each leaf. */
function tsquerySql(node: Node, bind: (value: string) => string): string {
  switch (node.k) {
    case 'word':
      return `to_tsquery(${CFG}, ${bind(node.w)})`;
    case 'prefix':
      return `to_tsquery(${CFG}, ${bind(`${node.w}:*`)})`;
    case 'phrase':
      return `phraseto_tsquery(${CFG}, ${bind(node.words.join(' '))})`;
    case 'and':
    case 'or':
      return `(${node.args.map((a) => tsquerySql(a, bind)).join(node.k === 'and' ? ' && ' : ' || ')})`;
    case 'not':
      return `(!! ${tsquerySql(node.arg, bind)})`;
  }
}

/**
 * Whether the tree matches a job with none of its words (`a | !b`). The API refuses such a query with
 * 400 rather than answer it (src/search/query.ts hasPositiveTerm: "a positive search term is
 * required" read as "every match holds a positive term"); PostgreSQL would answer it, so for this
 * form alone the oracle is the 400.
 */
function matchesWordless(node: Node): boolean {
  switch (node.k) {
    case 'word':
    case 'prefix':
    case 'phrase':
      return false;
    case 'and':
      return node.args.every(matchesWordless);
    case 'or':
      return node.args.some(matchesWordless);
    case 'not':
      return !matchesWordless(node.arg);
  }
}

/** The tree in our Boolean syntax, with every spelling of the operators and only the parentheses precedence needs (plus a few spare). */
function render(rng: Rng, node: Node, parent?: 'and' | 'or' | 'not'): string {
  let text: string;
  switch (node.k) {
    case 'word':
      return casing(rng, node.w);
    case 'prefix':
      return `${node.w}:*`;
    case 'phrase':
      return `"${casing(rng, node.words.join(' '))}"`;
    case 'not':
      text = `${rng.chance(0.5) ? 'NOT ' : '!'}${render(rng, node.arg, 'not')}`;
      break;
    case 'and':
      text = node.args.map((a) => render(rng, a, 'and')).reduce((left, right) => `${left}${rng.pick([' AND ', ' & ', ' '])}${right}`);
      break;
    case 'or':
      text = node.args.map((a) => render(rng, a, 'or')).reduce((left, right) => `${left}${rng.pick([' OR ', ' | '])}${right}`);
      break;
  }
  const needed = (node.k === 'or' && parent !== undefined && parent !== 'or') || (node.k === 'and' && parent === 'not');
  return needed || (parent !== undefined && node.k !== 'not' && rng.chance(0.15)) ? `(${text})` : text;
}

/** Queries drawn from the corpus; `hasLexemes` asks PostgreSQL whether a text survives analysis (not only stop words). */
class QueryMaker {
  private readonly common: Record<Field, string[]>;
  private readonly withDescription: Doc[];

  constructor(
    private readonly rng: Rng,
    private readonly docs: Doc[],
    private readonly hasLexemes: (text: string) => Promise<boolean>,
  ) {
    this.withDescription = docs.filter((d) => d.description);
    const frequent = (field: Field) => {
      const df = new Map<string, number>();
      for (const d of docs) for (const w of new Set(wordsOf(d[field]).map((x) => x.toLowerCase()))) df.set(w, (df.get(w) ?? 0) + 1);
      return [...df]
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
        .slice(0, 60)
        .map(([w]) => w);
    };
    this.common = { title: frequent('title'), description: frequent('description') };
  }

  private doc(field: Field): Doc {
    return this.rng.pick(field === 'title' ? this.docs : this.withDescription);
  }

  /** Draws until the text has a lexeme PostgreSQL keeps (queries of stop words alone are their own case). */
  private async meaningful(draw: () => string): Promise<string> {
    for (;;) {
      const text = draw();
      if (text.length <= 200 && /[\p{L}\p{N}]/u.test(text) && (await this.hasLexemes(text))) return text;
    }
  }

  /** 1-3 consecutive words of a title or description, sometimes with the punctuation around them. */
  phrase(field: Field, raw = this.rng.chance(0.25)): Promise<string> {
    return this.meaningful(() => {
      const text = this.doc(field)[field];
      const size = 1 + this.rng.int(3);
      return casing(this.rng, raw ? window(this.rng, tokensOf(text), size).join(' ') : window(this.rng, wordsOf(text), size).join(' '));
    });
  }

  /** A phrase around a stop word of a title or description ("Director of Operations"), or with its stop word swapped. */
  stopWordPhrase(field: Field): Promise<string> {
    return this.meaningful(() => {
      for (let i = 0; i < 200; i++) {
        const words = wordsOf(this.doc(field)[field]);
        const at = words.findIndex((w, j) => j > 0 && j < words.length - 1 && /^(of|and|for|to|the|in|with|at|on)$/i.test(w));
        if (at < 0) continue;
        const swapped = this.rng.chance(0.3) ? this.rng.pick(['of', 'for', 'the', 'with', 'in']) : words[at]!;
        return [words[at - 1], swapped, ...(this.rng.chance(0.7) ? [words[at + 1]] : [])].join(' ');
      }
      return `${this.rng.pick(this.common[field])} of ${this.rng.pick(this.common[field])}`;
    });
  }

  /** Words of one description in any order, sometimes with a common or a rare word of another. */
  plainWords(): Promise<string> {
    return this.meaningful(() => {
      const words = wordsOf(this.doc('description').description);
      const picked = Array.from({ length: 1 + this.rng.int(3) }, () => this.rng.pick(words));
      if (this.rng.chance(0.2)) picked.push(this.rng.pick(wordsOf(this.doc('description').description)));
      return casing(this.rng, picked.join(' '));
    });
  }

  hyphenated(field: Field): Promise<string> {
    return this.meaningful(() => {
      for (let i = 0; i < 500; i++) {
        const found = wordsOf(this.doc(field)[field]).filter((w) => w.includes('-'));
        if (found.length > 0) return this.rng.pick(found);
      }
      return 'full-time';
    });
  }

  async accented(field: Field): Promise<string> {
    const phrase = await this.phrase(field, false);
    return phrase
      .split(' ')
      .map((w) => (this.rng.chance(0.6) ? accentuate(this.rng, w) : w))
      .join(' ');
  }

  /** Raw tokens with digits or symbols in them: amounts, "3+ years", "0-1". */
  symbols(field: Field): Promise<string> {
    return this.meaningful(() => {
      for (let i = 0; i < 50; i++) {
        const tokens = tokensOf(this.doc(field)[field]);
        const at = tokens.findIndex((t, j) => j >= this.rng.int(tokens.length) && /[\d$+&/()]/.test(t));
        if (at >= 0) return tokens.slice(at, at + 1 + this.rng.int(2)).join(' ');
      }
      return '401(k)';
    });
  }

  private async term(field: Field, doc: Doc): Promise<Node> {
    const words = wordsOf(doc[field]).filter((w) => !OPERATOR_WORDS.has(w.toLowerCase()));
    for (;;) {
      const r = this.rng.next();
      let node: Node;
      let probe: string;
      if (r < 0.55) {
        const w = this.rng.pick(words);
        node = { k: 'word', w };
        probe = w;
      } else if (r < 0.75) {
        const w = this.rng.pick(words.filter((x) => x.length >= 5 && !x.includes('-')).concat(['manager']));
        node = { k: 'prefix', w: w.slice(0, 3 + this.rng.int(w.length - 3)).toLowerCase() };
        probe = node.w;
      } else {
        const phrase = window(this.rng, wordsOf(doc[field]), 2 + this.rng.int(2));
        node = { k: 'phrase', words: phrase };
        probe = phrase.join(' ');
      }
      if (await this.hasLexemes(probe)) return node;
    }
  }

  private async other(field: Field): Promise<Node> {
    const w = this.rng.pick(this.common[field].filter((x) => !OPERATOR_WORDS.has(x)));
    return (await this.hasLexemes(w)) ? { k: 'word', w } : this.term(field, this.doc(field));
  }

  /** A Boolean tree with at least one positive term, most terms from one document so that AND can match. */
  async tree(field: Field): Promise<Node> {
    const d = this.doc(field);
    const t = () => this.term(field, d);
    const o = () => this.other(field);
    const not = (arg: Node): Node => ({ k: 'not', arg });
    const and = (...args: Node[]): Node => ({ k: 'and', args });
    const or = (...args: Node[]): Node => ({ k: 'or', args });
    // Arguments are awaited left to right, so the RNG is drawn in a fixed order.
    const shapes: (() => Promise<Node>)[] = [
      t,
      async () => and(await t(), await t()),
      async () => and(await t(), await t(), await t()),
      async () => or(await t(), await o()),
      async () => and(await t(), not(await o())),
      async () => and(not(await o()), await t()),
      async () => and(or(await t(), await o()), await t()),
      async () => or(and(await t(), await t()), await o()),
      async () => and(await t(), not(or(await o(), await o()))),
      async () => and(or(await t(), await t()), not(await o())),
    ];
    if (this.rng.chance(0.04)) return or(await t(), not(await o()));
    return this.rng.pick(shapes)();
  }

  async advanced(field: Field): Promise<TextParam> {
    for (;;) {
      const tree = await this.tree(field);
      const value = render(this.rng, tree);
      if (value.length <= 200) return { name: field === 'title' ? 'title_advanced' : 'description_advanced', value, tree };
    }
  }

  /** Two text filters at once (they combine with AND): a frequent word with a drawn query. */
  async combined(): Promise<TextParam[]> {
    const frequent = (field: Field) => this.rng.pick(this.common[field].slice(0, 20).filter((w) => !OPERATOR_WORDS.has(w)));
    switch (this.rng.int(3)) {
      case 0:
        return [
          { name: 'title', value: await this.meaningful(() => frequent('title')) },
          { name: 'description', value: await this.plainWords() },
        ];
      case 1:
        return [{ name: 'q', value: await this.meaningful(() => frequent('title')) }, await this.advanced('description')];
      default:
        return [await this.advanced('title'), { name: 'description', value: await this.meaningful(() => frequent('description')) }];
    }
  }

  /** Stop words alone: PostgreSQL's query has no lexeme and matches nothing. */
  stopWordsOnly(): string {
    return this.rng.pick(['of', 'the', 'and', 'of the', 'to be', 'for']);
  }
}

/** The generated mix, 300 queries: [kind, how many, its text parameters]. */
function mix(m: QueryMaker, rng: Rng): [string, number, () => Promise<TextParam[]>][] {
  const one = (name: TextName, value: () => Promise<string> | string) => async (): Promise<TextParam[]> => [{ name, value: await value() }];
  const anyOf = (names: TextName[], value: () => Promise<string> | string) => async () => one(rng.pick(names), value)();
  return [
    ['title phrase', 40, one('title', () => m.phrase('title'))],
    ['title phrase around a stop word', 15, one('title', () => m.stopWordPhrase('title'))],
    ['q phrase from a title', 15, one('q', () => m.phrase('title'))],
    ['q phrase from a description', 35, one('q', () => m.phrase('description'))],
    ['q phrase around a stop word', 10, one('q', () => m.stopWordPhrase('description'))],
    ['description words', 40, one('description', () => m.plainWords())],
    ['title_advanced', 45, async () => [await m.advanced('title')]],
    ['description_advanced', 45, async () => [await m.advanced('description')]],
    [
      'hyphenated word',
      15,
      async () =>
        (rng.chance(0.3) ? one('title', () => m.hyphenated('title')) : anyOf(['q', 'description'], () => m.hyphenated('description')))(),
    ],
    ['accented words', 15, anyOf(['q', 'description', 'title'], () => m.accented(rng.chance(0.5) ? 'description' : 'title'))],
    ['digits and symbols', 10, one('q', () => m.symbols(rng.chance(0.2) ? 'title' : 'description'))],
    ['two text filters', 12, () => m.combined()],
    ['stop words only', 3, anyOf(['title', 'q', 'description'], () => m.stopWordsOnly())],
  ];
}

async function makeCases(rng: Rng, docs: Doc[], db: pg.Client): Promise<Case[]> {
  const seen = new Map<string, boolean>();
  const hasLexemes = async (text: string) => {
    if (!seen.has(text))
      seen.set(text, (await db.query<{ ok: boolean }>(`SELECT numnode(plainto_tsquery(${CFG}, $1)) > 0 AS ok`, [text])).rows[0]!.ok);
    return seen.get(text)!;
  };
  const maker = new QueryMaker(rng, docs, hasLexemes);
  const cases: Case[] = [];
  for (const [kind, count, draw] of mix(maker, rng)) {
    for (let i = 0; i < count; i++) {
      const text = await draw();
      const ranked = text.some((t) => t.name === 'title' || t.name === 'q' || t.name === 'description');
      cases.push({
        kind,
        text,
        currentOnly: rng.chance(0.15),
        ...(ranked && rng.chance(0.5) ? { sort: 'updated' as const } : {}),
        limit: rng.chance(0.7) ? 1000 : 100,
      });
    }
  }
  return cases;
}

/** The tsquery PostgreSQL runs for one text parameter, and the column it runs on. */
function oracleQuery(t: TextParam, bind: (value: string) => string): { columns: string[]; tsquery: string } {
  switch (t.name) {
    case 'title':
      return { columns: ['title_tsv'], tsquery: `phraseto_tsquery(${CFG}, ${bind(t.value)})` };
    case 'q':
      return { columns: ['title_tsv', 'description_tsv'], tsquery: `phraseto_tsquery(${CFG}, ${bind(t.value)})` };
    case 'description':
      return { columns: ['description_tsv'], tsquery: `plainto_tsquery(${CFG}, ${bind(t.value)})` };
    case 'title_advanced':
      return { columns: ['title_tsv'], tsquery: tsquerySql(t.tree!, bind) };
    case 'description_advanced':
      return { columns: ['description_tsv'], tsquery: tsquerySql(t.tree!, bind) };
  }
}

/** The SELECT of the matching job_ids, per DESIGN.md 4 (every text filter must hold). */
function oracleSql(c: Case): { sql: string; values: string[] } {
  const values: string[] = [];
  const bind = (value: string) => {
    values.push(value);
    return `$${values.length}`;
  };
  const conditions = c.text.map((t) => {
    const { columns, tsquery } = oracleQuery(t, bind);
    return `(${columns.map((column) => `${column} @@ ${tsquery}`).join(' OR ')})`;
  });
  if (c.currentOnly) conditions.push("currentness = 'current'");
  return { sql: `SELECT job_id::text AS id FROM jobs WHERE ${conditions.join(' AND ')}`, values };
}

function apiPath(c: Case, cursor: string | null): string {
  const params = new URLSearchParams();
  for (const t of c.text) params.set(t.name, t.value);
  if (!c.currentOnly) params.set('currentness', ALL_CURRENTNESS);
  if (c.sort) params.set('sort', c.sort);
  params.set('fields', 'job_id');
  params.set('limit', String(c.limit));
  if (cursor !== null) params.set('cursor', cursor);
  return `/v1/jobs?${params.toString()}`;
}

interface Page {
  data: { job_id: string }[];
  next_cursor: string | null;
}

describe('text search against PostgreSQL (DESIGN.md 4)', function () {
  this.timeout(180_000);
  let app: TestApp;
  let db: pg.Client;
  let docs: Doc[];
  let cases: Case[];
  let key = '';
  let requests = 0;

  /** GET as a client would; a fresh account every 50 requests keeps clear of the per-minute window. */
  async function get(path: string) {
    if (requests++ % 50 === 0) key = (await app.account({ plan: 'paid-500k' })).key;
    return app.api.get<Page>(path, { key });
  }

  /** Every job_id of every page, or the error that stopped the listing. */
  async function apiIds(c: Case): Promise<{ ids: string[]; error?: string }> {
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await get(apiPath(c, cursor));
      if (res.status !== 200) return { ids, error: `${res.status} ${res.text}` };
      ids.push(...res.body.data.map((j) => j.job_id));
      cursor = res.body.next_cursor;
    } while (cursor !== null);
    return { ids };
  }

  async function explain(c: Case, api: { ids: string[]; error?: string }, expected: Set<string>): Promise<string> {
    const titles = new Map(docs.map((d) => [d.id, d.title]));
    const lines = [`  x [${c.kind}] GET ${decodeURIComponent(apiPath(c, null))}  (API ${api.ids.length}, PostgreSQL ${expected.size})`];
    if (api.error) lines.push(`      API error: ${api.error.slice(0, 300)}`);
    for (const t of c.text) {
      const values: string[] = [];
      const { tsquery } = oracleQuery(t, (v) => (values.push(v), `$${values.length}`));
      const { rows } = await db.query<{ q: string }>(`SELECT (${tsquery})::text AS q`, values);
      lines.push(`      ${t.name}: ${JSON.stringify(t.value)} -> tsquery ${rows[0]!.q || '(empty)'}`);
    }
    const got = new Set(api.ids);
    const show = (label: string, ids: string[]) =>
      ids.slice(0, 4).map((id) => `      only ${label}: ${id} ${JSON.stringify(titles.get(id))}`);
    lines.push(
      ...show(
        'API',
        [...got].filter((id) => !expected.has(id)),
      ),
      ...show(
        'PostgreSQL',
        [...expected].filter((id) => !got.has(id)),
      ),
    );
    if (got.size !== api.ids.length) lines.push(`      the API listed ${api.ids.length - got.size} job_ids twice`);
    return lines.join('\n');
  }

  before(async () => {
    app = await startTestAppWithCatalog({ jobs: 2000, seed: 11 });
    const watermark = (await readPointer(latestPointer(app.config.snapshotsDir)))!;
    const url = await (await testPostgres()).database('search_oracle');
    await loadSnapshotIntoPostgres(url, snapshotDir(app.config.snapshotsDir, watermark));
    db = new pg.Client({ connectionString: url });
    await db.connect();
    docs = (await db.query<Doc>('SELECT job_id::text AS id, title, description FROM jobs ORDER BY job_id')).rows;
    cases = await makeCases(new Rng(SEED), docs, db);
  });

  after(async () => {
    await db?.end();
    await app?.close();
  });

  it('selects the same jobs as PostgreSQL for every generated query, across all pages', async () => {
    const failed: string[] = [];
    const byKind = new Map<string, [number, number]>();
    let nonEmpty = 0;
    let refused = 0;
    for (const c of cases) {
      const { sql, values } = oracleSql(c);
      const expected = new Set((await db.query<{ id: string }>(sql, values)).rows.map((r) => r.id));
      const api = await apiIds(c);
      let agrees: boolean;
      if (c.text.some((t) => t.tree && matchesWordless(t.tree))) {
        refused++;
        agrees = api.error?.startsWith('400 ') === true && api.error.includes('"invalid_request"');
      } else {
        agrees = !api.error && api.ids.length === expected.size && api.ids.every((id) => expected.has(id));
        if (expected.size > 0) nonEmpty++;
      }
      const tally = byKind.get(c.kind) ?? [0, 0];
      byKind.set(c.kind, [tally[0] + (agrees ? 1 : 0), tally[1] + 1]);
      if (!agrees) failed.push(await explain(c, api, expected));
    }
    for (const failure of failed) console.log(failure);
    console.log(
      `oracle: ${cases.length - failed.length}/${cases.length} queries agree (${nonEmpty} with matches, ${refused} of the form a | !b answered 400; ${requests} API requests)`,
    );
    console.log(`  ${[...byKind].map(([kind, [ok, n]]) => `${kind} ${ok}/${n}`).join(', ')}`);
    expect(nonEmpty, 'queries with at least one match').to.be.at.least(cases.length * 0.6);
    expect(failed, 'queries where the API and PostgreSQL disagree').to.have.length(0);
  });

  it('ranks a q match in the title before every match only in the description', async () => {
    // Title weighs 1.0 and description 0.1: one title occurrence outscores any description, which
    // would need its word about a thousand times to catch up; so between these two classes the
    // order does not depend on the scoring details.
    const df = new Map<string, number>();
    for (const d of docs) for (const w of new Set(wordsOf(d.title).map((x) => x.toLowerCase()))) df.set(w, (df.get(w) ?? 0) + 1);
    const candidates = [...df].filter(([, n]) => n >= 3 && n <= 60).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    let word: string | undefined;
    let inTitle = new Set<string>();
    let onlyDescription = new Set<string>();
    for (const [w] of candidates) {
      const { rows } = await db.query<{ id: string; title: boolean }>(
        `SELECT job_id::text AS id, coalesce(title_tsv @@ q, false) AS title FROM jobs, phraseto_tsquery(${CFG}, $1) q
         WHERE currentness = 'current' AND (title_tsv @@ q OR description_tsv @@ q)`,
        [w],
      );
      inTitle = new Set(rows.filter((r) => r.title).map((r) => r.id));
      onlyDescription = new Set(rows.filter((r) => !r.title).map((r) => r.id));
      if (inTitle.size >= 3 && inTitle.size <= 40 && onlyDescription.size >= 10) {
        word = w;
        break;
      }
    }
    expect(word, 'a word found in some titles and in more descriptions').to.be.a('string');
    const res = await get(`/v1/jobs?q=${encodeURIComponent(word!)}&fields=job_id&limit=50`);
    expect(res.status, res.text).to.equal(200);
    const page = res.body.data.map((j) => j.job_id);
    expect(page).to.have.length(Math.min(50, inTitle.size + onlyDescription.size));
    expect(
      page.slice(0, inTitle.size).every((id) => inTitle.has(id)),
      `title matches first for q=${word}`,
    ).to.equal(true);
    expect(
      page.slice(inTitle.size).every((id) => onlyDescription.has(id)),
      `then description matches for q=${word}`,
    ).to.equal(true);
  });

  it('orders by ts_rank exactly as PostgreSQL does, ties by job_id descending', async () => {
    // DESIGN.md 4: ts_rank('{0.1, 0, 0, 1.0}', title_A || description_D, query). The first page of
    // 50 must be PostgreSQL's first 50 in the same order, for one-word, phrase and several-word queries.
    const words = ['manager', 'experience', 'customers', 'safety', 'team'];
    const phrases = ['software engineer', 'registered nurse', 'customer service', 'sales associate'];
    const checks: { param: 'q' | 'title' | 'description'; text: string; tsquery: string }[] = [
      ...words.map((w) => ({ param: 'q' as const, text: w, tsquery: `phraseto_tsquery(${CFG}, $1)` })),
      ...phrases.map((p) => ({ param: 'title' as const, text: p, tsquery: `phraseto_tsquery(${CFG}, $1)` })),
      ...phrases.map((p) => ({ param: 'q' as const, text: p, tsquery: `phraseto_tsquery(${CFG}, $1)` })),
      { param: 'description', text: 'safety customers', tsquery: `plainto_tsquery(${CFG}, $1)` },
      { param: 'description', text: 'team experience python', tsquery: `plainto_tsquery(${CFG}, $1)` },
    ];
    let compared = 0;
    for (const check of checks) {
      const where =
        check.param === 'title'
          ? 'title_tsv @@ q'
          : check.param === 'description'
            ? 'description_tsv @@ q'
            : '(title_tsv @@ q OR description_tsv @@ q)';
      const { rows } = await db.query<{ id: string }>(
        `SELECT job_id::text AS id FROM jobs, ${check.tsquery} q WHERE currentness = 'current' AND ${where}
         ORDER BY ts_rank('{0.1, 0, 0, 1.0}', document, q) DESC, job_id DESC LIMIT 50`,
        [check.text],
      );
      if (rows.length === 0) continue;
      const res = await get(`/v1/jobs?${check.param}=${encodeURIComponent(check.text)}&fields=job_id&limit=50`);
      expect(res.status, res.text).to.equal(200);
      expect(
        res.body.data.map((j) => j.job_id),
        `${check.param}=${check.text}`,
      ).to.deep.equal(rows.map((r) => r.id));
      compared++;
    }
    console.log(`  ranking: ${compared} first pages in PostgreSQL's ts_rank order`);
    expect(compared).to.be.at.least(10);
  });
});
