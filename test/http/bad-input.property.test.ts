import { expect } from 'chai';
import fc from 'fast-check';
import { gzipSync } from 'node:zlib';
import { startTestAppWithCatalog, type TestApp } from '../support/app.js';
import { openapi } from '../support/contract.js';

/**
 * Requests generated from openapi.yaml (its paths, methods, parameters and body properties), with valid
 * and invalid values, odd strings, wrong JSON types and bad encodings, sent to the real app. Whatever
 * comes in: never a 5xx (but the documented 503 format_unavailable), every error is the envelope with
 * its request_id in X-Request-Id, and every response matches the contract (the test client checks it).
 */

type Node = Record<string, unknown>;

const SEED = Number(process.env.PROPERTY_SEED ?? 20261123);
const RUNS = Number(process.env.PROPERTY_RUNS ?? 500);

function resolve(node: Node): Node {
  if (typeof node.$ref !== 'string') return node;
  let at: unknown = openapi;
  for (const part of node.$ref.replace(/^#\//, '').split('/')) at = (at as Node)[part];
  return resolve(at as Node);
}

interface Operation {
  method: string;
  template: string;
  query: string[];
  body: string[] | null;
}

const METHODS = ['get', 'post', 'put'];
const OPERATIONS: Operation[] = Object.entries(openapi.paths).flatMap(([template, item]) =>
  Object.entries(item as Record<string, Node>)
    .filter(([method]) => METHODS.includes(method))
    .map(([method, operation]) => {
      const params = ((operation.parameters ?? []) as Node[]).map(resolve);
      const content = (resolve((operation.requestBody ?? {}) as Node).content ?? {}) as Record<string, { schema: Node }>;
      const schema = content['application/json'] ? resolve(content['application/json'].schema) : undefined;
      return {
        method: method.toUpperCase(),
        template,
        query: params.filter((p) => p.in === 'query').map((p) => p.name as string),
        body: schema ? Object.keys(schema.properties ?? {}) : null,
      };
    }),
);

/** Strings that have broken servers: NUL, lone surrogates, numbers in other notations, huge and empty values. */
// prettier-ignore
const ODD = [
  '', ' ', '\u0000', 'a\u0000b', '\ud800', 'x\udc00', '👩‍⚕️', '0x10', '1e1', '+10', '-1', '-0', '1e309', '9'.repeat(400), 'NaN', 'Infinity',
  '10.0', '１０', '2026-02-30', '2026-11-18T06:00:00Z', 'current,not_current', 'a'.repeat(300), '%', '%00', '\\', '"', "'", '<script>',
  'null', 'true',
];

const text = fc.oneof(
  fc.constantFrom(...ODD),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.integer().map(String),
);
const jsonValue = fc.oneof(
  text,
  fc.constantFrom(0, -0, 1, 25, 250, 1000, 1001, -5, 1e-9, 5e-324, 0.07, 12.345, 1e21, 1e308, 2 ** 53 + 1, true, false, null),
  fc.array(text, { maxLength: 3 }),
  fc.dictionary(fc.constantFrom('match_all', 'match', 'bool', 'term', 'must', 'title', 'x'), text, { maxKeys: 2 }),
);

/** Percent-encodes like a client would, but also the bytes of a lone surrogate, which encodeURIComponent refuses. */
function encode(value: string): string {
  return [...value].map((c) => (/[\ud800-\udfff]/.test(c) ? '%ED%A0%80' : encodeURIComponent(c))).join('');
}

// An empty, "." or ".." segment would be resolved away by the client's URL parser: not what the path says.
const segment = (value: string) => encode(/^\.{0,2}$/.test(value) ? `x${value}` : value);
const pathValue = fc.oneof(fc.constant('00000000-0000-4000-8000-000000000000'), fc.uuid(), text.map(segment), fc.constant('1'));

const request = fc.record({
  operation: fc.constantFrom(...OPERATIONS),
  method: fc.oneof(
    { weight: 12, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE') },
  ),
  pathValues: fc.array(pathValue, { minLength: 2, maxLength: 2 }),
  query: fc.array(
    fc.tuple(
      fc.oneof({ weight: 5, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.constantFrom('nope', 'a\u0000', 'limit') }),
      text,
    ),
    { maxLength: 3 },
  ),
  body: fc.oneof(
    {
      weight: 4,
      arbitrary: fc.array(fc.tuple(fc.option(fc.constantFrom('unknown_key', 'n\u0000', ''), { freq: 6 }), jsonValue), { maxLength: 4 }),
    },
    { weight: 1, arbitrary: fc.constantFrom('{"title": tru', '[1,2]', '"text"', '', 'null', '{"a":' + '['.repeat(3000)) },
  ),
  encoding: fc.constantFrom(undefined, undefined, undefined, 'gzip', 'deflate', 'gzip-real', 'br', 'foo'),
  contentType: fc.constantFrom(
    'application/json',
    'application/json',
    'application/json',
    'text/plain',
    'application/json; charset=latin1',
    undefined,
  ),
  // A good key 18 times in 20: most requests reach validation.
  auth: fc.constantFrom(...Array<string>(18).fill('good'), 'none', 'wrong'),
});

type Generated = typeof request extends fc.Arbitrary<infer T> ? T : never;

describe('bad input never answers 5xx (property over the contract)', function () {
  this.timeout(180_000);
  let app: TestApp;
  let key: string;
  let base: number;

  before(async () => {
    app = await startTestAppWithCatalog({ jobs: 60, seed: 17 });
    ({ key } = await app.account({ plan: 'paid-500k' }));
    base = Date.parse('2026-11-20T00:00:00Z');
  });
  after(() => app.close());

  function build(g: Generated, operation: Operation): { path: string; body?: string | Buffer; headers: Record<string, string> } {
    let i = 0;
    let path = operation.template.replace(/\{[^}]+\}/g, () => g.pathValues[i++]!);
    const query = g.query.map(
      ([name, value], n) => `${encode(name ?? operation.query[n % Math.max(1, operation.query.length)] ?? 'limit')}=${encode(value)}`,
    );
    if (query.length > 0) path += `?${query.join('&')}`;
    const headers: Record<string, string> = {};
    if (g.auth === 'good') headers.authorization = `Bearer ${key}`;
    if (g.auth === 'wrong') headers.authorization = `Bearer jps_live_aaaaaaaaaaaaaaaa.${'B'.repeat(43)}`;
    if (operation.body === null) return { path, headers };
    let body: string | Buffer =
      typeof g.body === 'string'
        ? g.body
        : JSON.stringify(
            Object.fromEntries(
              g.body.map(([name, value], n) => [name ?? operation.body![n % Math.max(1, operation.body!.length)] ?? 'x', value]),
            ),
          );
    if (g.contentType) headers['content-type'] = g.contentType;
    if (g.encoding === 'gzip-real') {
      body = gzipSync(body);
      headers['content-encoding'] = 'gzip';
    } else if (g.encoding) headers['content-encoding'] = g.encoding;
    return { path, body, headers };
  }

  it(`holds for ${RUNS} generated requests (seed ${SEED})`, async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(request, async (g) => {
        // A new request window for every request: the property is about input, not about the window.
        app.setNow(new Date(base + ++n * 61_000));
        const operation = g.operation;
        const method = g.method ?? operation.method;
        const { path, body, headers } = build(g, operation);
        const sent = method === 'GET' ? undefined : body;
        const res = await app.api.request<{ error?: { code: string; request_id: string } }>(method, path, {
          body: sent,
          headers,
          noWait: true,
        });
        const where = `${method} ${path.slice(0, 200)} → ${res.status} ${res.text.slice(0, 300)}`;
        expect(res.status < 500 || (res.status === 503 && res.body.error?.code === 'format_unavailable'), where).to.equal(true);
        if (res.status >= 400) {
          expect(res.body.error, where).to.be.an('object');
          expect(res.body.error!.request_id, where).to.equal(res.headers.get('x-request-id'));
        }
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
  });
});
