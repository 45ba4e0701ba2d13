// The PostgreSQL peer behind HTTP (issue 24): what a plain API over the same PostgreSQL would answer, whole
// request against whole request. `tsx bench/pg-peer-http.ts <postgres url> <keys>` runs in its own process,
// as our server does: node:http, a pool of `pg` connections, each request's key looked up in a table (a
// SHA-256 hash compared in constant time), then the request's SQL (bench/pg-peer.ts, a named prepared
// statement per connection) and its rows as JSON. No metering, no validation beyond the query's kind, no
// request log. It prints `{"url": ..., "keys": [...]}` on one line once it listens.
//
// GET /<kind>?<params> answers as the API's route would: a job (404 when none), a page {data, has_more}
// of at most 50, or {count}.

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { PEER_KINDS, prepared, type PeerKind, type PeerParams } from './pg-peer.js';

const PAGE = 50;
const KINDS = new Set<string>(PEER_KINDS);
const KEY = /^Bearer peer_([0-9a-f]{16})\.([0-9a-f]{32})$/;

const [url, keyCount] = process.argv.slice(2);
const pool = new pg.Pool({ connectionString: url, max: 4 });
const hash = (secret: string) => createHash('sha256').update(secret).digest();

async function makeKeys(count: number): Promise<string[]> {
  await pool.query('CREATE TABLE IF NOT EXISTS peer_keys (key_id text PRIMARY KEY, account_id text NOT NULL, secret_hash bytea NOT NULL)');
  const keys: string[] = [];
  const rows: unknown[] = [];
  for (let i = 0; i < count; i++) {
    const keyId = randomBytes(8).toString('hex');
    const secret = randomBytes(16).toString('hex');
    keys.push(`peer_${keyId}.${secret}`);
    rows.push({ key_id: keyId, account_id: `acct_${i}`, secret_hash: `\\x${hash(secret).toString('hex')}` });
  }
  await pool.query(
    `INSERT INTO peer_keys SELECT key_id, account_id, secret_hash::bytea FROM json_to_recordset($1::json) AS r(key_id text, account_id text, secret_hash text)`,
    [JSON.stringify(rows)],
  );
  return keys;
}

/** The account behind the key, or undefined. */
async function authenticate(header: string | undefined): Promise<string | undefined> {
  const parsed = header ? KEY.exec(header) : null;
  if (!parsed) return undefined;
  const { rows } = await pool.query<{ account_id: string; secret_hash: Buffer }>({
    name: 'peer_key',
    text: 'SELECT account_id, secret_hash FROM peer_keys WHERE key_id = $1',
    values: [parsed[1]],
  });
  const row = rows[0];
  return row && timingSafeEqual(row.secret_hash, hash(parsed[2]!)) ? row.account_id : undefined;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const target = new URL(req.url ?? '/', 'http://peer');
  const kind = target.pathname.slice(1);
  if (!KINDS.has(kind)) return send(res, 404, { error: 'not_found' });
  if ((await authenticate(req.headers.authorization)) === undefined) return send(res, 401, { error: 'invalid_api_key' });
  const params: PeerParams = Object.fromEntries(target.searchParams);
  const { rows } = await pool.query<Record<string, unknown>>(prepared(kind as PeerKind, params));
  if (kind === 'by_id') return rows[0] ? send(res, 200, rows[0]) : send(res, 404, { error: 'job_not_found' });
  if (kind === 'count' || kind === 'count_text') return send(res, 200, { count: Number(rows[0]!.count) });
  send(res, 200, { data: rows.slice(0, PAGE), has_more: rows.length > PAGE });
}

const keys = await makeKeys(Number(keyCount));
const server = createServer((req, res) => {
  answer(req, res).catch((error: unknown) => send(res, 500, { error: String(error) }));
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}`, keys })}\n`);
});
process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void pool.end().then(() => process.exit(0));
});
