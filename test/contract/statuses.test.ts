import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { startTestApp, startTestAppWithCatalog, type TestApp } from '../support/app.js';
import type { ApiResponse } from '../support/client.js';
import { openapi } from '../support/contract.js';

/** How a documented status is reached: a request here, or a test of its own, or (with the reason) not at all. */
type Way = { trigger: (ctx: Context) => Promise<ApiResponse> } | { coveredBy: string; checks: string } | { unreachable: string };

interface Context {
  app: TestApp;
  /** An app with nothing published: the catalog and company routes answer 503 there. */
  bare: TestApp;
  key: string;
  bareKey: string;
  ids: { job: string; company: string; export: string };
}

/** A request of the operation that succeeds: path with real ids and the parameters it needs, and a body. */
function valid(c: Context, method: string, path: string): { path: string; body?: unknown } {
  const at = path
    .replace('{jobId}', c.ids.job)
    .replace('{companyId}', c.ids.company)
    .replace('{exportId}', c.ids.export)
    .replace('{n}', '1');
  if (path === '/v1/jobs/changes') return { path: `${at}?since=2000-01-01T00:00:00Z&limit=2` };
  if (method === 'POST' && path === '/v1/jobs/exports') return { path: at, body: { max_records: 3 } };
  if (method === 'POST' && path === '/v1/jobs/search/es_dsl') return { path: at, body: { query: { match_all: {} }, limit: 2 } };
  if (method === 'POST') return { path: at, body: { limit: 2 } };
  if (method === 'PUT') return { path: at, body: { enabled: true } };
  return { path: at };
}

const send = (
  c: Context,
  method: string,
  path: string,
  extra: { key?: string | null; headers?: Record<string, string>; body?: unknown; query?: string; app?: TestApp; noWait?: boolean } = {},
) => {
  const request = valid(c, method, path);
  const url = extra.query ? `${request.path}${request.path.includes('?') ? '&' : '?'}${extra.query}` : request.path;
  const key = extra.key === null ? undefined : (extra.key ?? c.key);
  // A full request window is waited out (the test app moves its clock), but where the 429 is the point.
  return (extra.app ?? c.app).api.request(method, url, {
    ...(key ? { key } : {}),
    headers: extra.headers ?? {},
    body: extra.body ?? request.body,
    noWait: extra.noWait ?? false,
  });
};

/** A ledger segment the store lists as durable whose file is gone (in the bare app): the usage ledger cannot be read. */
async function withLostSegment(c: Context, read: () => Promise<ApiResponse>): Promise<ApiResponse> {
  const [segment] = await c.bare.store.query<{ segment_id: string }>(
    "INSERT INTO ledger_segments (day, state, rows) VALUES (current_date, 'durable', 1) RETURNING segment_id",
  );
  try {
    return await read();
  } finally {
    await c.bare.store.query('DELETE FROM ledger_segments WHERE segment_id = $1', [segment!.segment_id]);
  }
}

/** The way to each documented status: by route where it differs, else by status. */
function wayTo(method: string, path: string, status: string): Way {
  const route = `${method} ${path}`;
  const special: Record<string, Way> = {
    'GET /healthz 500': { unreachable: 'health answers 503 when its checks fail; a 500 would be an unexpected failure of the handler' },
    'GET /healthz 503': {
      trigger: async () => {
        // A state store that does not answer: not ready.
        const broken = await startTestApp();
        try {
          await broken.store.close();
          return await broken.api.get('/healthz');
        } finally {
          await broken.service.close();
        }
      },
    },
    'GET /healthz 200': { trigger: (c) => c.app.api.get('/healthz') },
    'POST /v1/jobs/exports 202': { trigger: (c) => send(c, method, path) },
    'POST /v1/jobs/exports 400': { trigger: (c) => send(c, method, path, { body: { limit: 5 } }) },
    'POST /v1/jobs/exports 409': {
      trigger: async (c) => {
        const { key } = await c.app.account({ plan: 'paid-5k' });
        c.app.service.exportRunner.pause();
        try {
          expect((await send(c, method, path, { key })).status).to.equal(202);
          return await send(c, method, path, { key });
        } finally {
          c.app.service.exportRunner.resume();
          await c.app.service.exportRunner.idle();
        }
      },
    },
    'POST /v1/jobs/exports 422': {
      trigger: async (c) => (
        await send(c, method, path, { headers: { 'idempotency-key': 'k-exports' } }),
        send(c, method, path, { headers: { 'idempotency-key': 'k-exports' }, body: { max_records: 4 } })
      ),
    },
    'POST /v1/jobs/exports 503': { coveredBy: 'test/http/exports.test.ts', checks: 'export_unavailable' },
    'PUT /v1/account/overage 400': { trigger: (c) => send(c, method, path, { body: {} }) },
    'PUT /v1/account/overage 403': { trigger: async (c) => send(c, method, path, { key: (await c.app.account({ plan: 'free' })).key }) },
    'PUT /v1/account/overage 409': {
      trigger: async (c) => {
        const { key, accountId } = await c.app.account({ plan: 'paid-5k' });
        await c.app.store.query('UPDATE accounts SET overage_price_micros = 1 WHERE account_id = $1', [accountId]);
        return send(c, method, path, { key });
      },
    },
    'PUT /v1/account/overage 422': {
      trigger: async (c) => (
        await send(c, method, path, { headers: { 'idempotency-key': 'k-overage' } }),
        send(c, method, path, { headers: { 'idempotency-key': 'k-overage' }, body: { enabled: false } })
      ),
    },
    'PUT /v1/account/overage 429': {
      // Outside the request window (spec 4.10 rule 7), but throttled: 10 changes a minute per account.
      trigger: async (c) => {
        const { key } = await c.app.account({ plan: 'paid-5k' });
        for (let i = 0; i < 10; i++) await send(c, method, path, { key });
        return send(c, method, path, { key, noWait: true });
      },
    },
    'GET /v1/account 503': {
      unreachable: 'listed as for every route; no condition of this route answers it (a state store that fails answers 500)',
    },
    'PUT /v1/account/overage 503': {
      unreachable: 'listed by spec 4.10 rule 6; no condition of this route answers it (a state store that fails answers 500)',
    },
    'GET /v1/jobs/{jobId} 404': { trigger: (c) => c.app.api.get('/v1/jobs/00000000-0000-4000-8000-000000000000', { key: c.key }) },
    'GET /v1/jobs/{jobId} 308': { coveredBy: 'test/http/job-identity.test.ts', checks: '308' },
    'GET /v1/jobs/{jobId} 410': { coveredBy: 'test/http/job-identity.test.ts', checks: '410' },
    'GET /v1/companies/{companyId} 404': {
      trigger: (c) => c.app.api.get('/v1/companies/00000000-0000-4000-8000-000000000000', { key: c.key }),
    },
    'GET /v1/companies/{companyId}/jobs 404': {
      trigger: (c) => c.app.api.get('/v1/companies/00000000-0000-4000-8000-000000000000/jobs', { key: c.key }),
    },
    'GET /v1/companies/{companyId} 308': { coveredBy: 'test/http/companies.test.ts', checks: 'moved.status).to.equal(308)' },
    'GET /v1/companies/{companyId}/jobs 308': { coveredBy: 'test/http/companies.test.ts', checks: 'movedJobs.status).to.equal(308)' },
    'GET /v1/jobs/exports/{exportId} 404': {
      trigger: (c) => c.app.api.get('/v1/jobs/exports/00000000-0000-4000-8000-000000000000', { key: c.key }),
    },
    'GET /v1/jobs/exports/{exportId}/files/{n} 404': {
      trigger: (c) => c.app.api.get(`/v1/jobs/exports/${c.ids.export}/files/99`, { key: c.key }),
    },
    'GET /v1/jobs/exports/{exportId}/files/{n} 206': { trigger: (c) => send(c, method, path, { headers: { range: 'bytes=0-9' } }) },
    'GET /v1/jobs/exports/{exportId}/files/{n} 416': { trigger: (c) => send(c, method, path, { headers: { range: 'bytes=99999999-' } }) },
    'GET /v1/jobs/exports/{exportId}/files/{n} 503': { coveredBy: 'test/http/exports.test.ts', checks: 'export_unavailable' },
    'GET /v1/jobs/exports/{exportId} 503': {
      unreachable: 'an export record is read from the state store only; a failing store answers 500',
    },
    'GET /v1/jobs/exports 503': { unreachable: 'the list is read from the state store only; a failing store answers 500' },
    'GET /v1/usage/requests 404': {
      unreachable:
        'listed by spec 4.11; documented as the generic route_not_found only: an api_key_id of no key of the account gives an empty page',
    },
    'GET /v1/usage/requests 503': { trigger: (c) => withLostSegment(c, () => send(c, method, path, { app: c.bare, key: c.bareKey })) },
    'GET /v1/usage/analytics 503': { trigger: (c) => withLostSegment(c, () => send(c, method, path, { app: c.bare, key: c.bareKey })) },
    'GET /v1/jobs/changes 503': { trigger: (c) => send(c, method, path, { app: c.bare, key: c.bareKey }) },
  };
  if (special[`${route} ${status}`]) return special[`${route} ${status}`]!;
  switch (status) {
    case '200':
      return { trigger: (c) => send(c, method, path) };
    case '304':
      return { trigger: (c) => send(c, method, path, { headers: { 'if-none-match': '*' } }) };
    case '400':
      return {
        trigger: (c) => (method === 'GET' ? send(c, method, path, { query: 'bogus=1' }) : send(c, method, path, { body: { bogus: 1 } })),
      };
    case '401':
      return { trigger: (c) => send(c, method, path, { key: null }) };
    case '408':
      return { coveredBy: 'test/http/connections.test.ts', checks: 'request_timeout' };
    case '414':
      return { trigger: (c) => send(c, method, path, { query: `x=${'a'.repeat(20_000)}` }) };
    case '431':
      return { trigger: (c) => send(c, method, path, { headers: { 'x-padding': 'a'.repeat(20_000) } }) };
    case '429':
      return {
        trigger: async (c) => {
          const { key, accountId } = await c.app.account({ plan: 'free' });
          // The window of the service's minute filled (its clock runs ahead of the real one once a window was
          // waited out), and filled again when the minute turned before the request reached it.
          const minute = () => Math.floor(c.app.now().getTime() / 60_000);
          for (;;) {
            const filled = minute();
            await c.app.store.query(
              `INSERT INTO rate_windows (account_id, window_start, used) VALUES ($1, date_trunc('minute', $2::timestamptz), 1000)
               ON CONFLICT (account_id) DO UPDATE SET window_start = EXCLUDED.window_start, used = EXCLUDED.used`,
              [accountId, c.app.now()],
            );
            const res = await send(c, method, path, { key, noWait: true });
            if (minute() === filled) return res;
          }
        },
      };
    case '500':
      return { coveredBy: 'test/http/errors.test.ts', checks: 'internal_error' };
    case '503':
      // Nothing is published in the bare app: the catalog routes answer catalog_unavailable, the company ones registry_unavailable.
      return { trigger: (c) => send(c, method, path, { app: c.bare, key: c.bareKey }) };
    case '504':
      return { coveredBy: 'test/db/query-engine.test.ts', checks: 'query_timeout' };
    default:
      return { unreachable: 'no way written for it' };
  }
}

const documented = Object.entries(openapi.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method]) => ['get', 'post', 'put'].includes(method))
    .flatMap(([method, operation]) =>
      Object.keys((operation as { responses: object }).responses).map((status) => ({ method: method.toUpperCase(), path, status })),
    ),
);

describe('every documented status of openapi.yaml', function () {
  this.timeout(180_000);
  const c = {} as Context;

  before(async () => {
    c.app = await startTestAppWithCatalog({ jobs: 300, seed: 11 });
    c.bare = await startTestApp();
    ({ key: c.key } = await c.app.account({ plan: 'paid-25k' }));
    ({ key: c.bareKey } = await c.bare.account({ plan: 'paid-25k' }));
    const page = await c.app.api.get<{ data: { job_id: string }[] }>('/v1/jobs?limit=1', { key: c.key });
    const companies = await c.app.api.get<{ data: { company_id: string }[] }>('/v1/companies?limit=1', { key: c.key });
    const created = await c.app.api.post<{ export_id: string }>('/v1/jobs/exports', { max_records: 3 }, { key: c.key });
    await c.app.service.exportRunner.idle();
    c.ids = { job: page.body.data[0]!.job_id, company: companies.body.data[0]!.company_id, export: created.body.export_id };
  });
  after(async () => {
    await c.app?.close();
    await c.bare?.close();
  });

  it('has a way to every documented status, and the tests it names exist and check that status', () => {
    for (const { method, path, status } of documented) {
      const way = wayTo(method, path, status);
      expect('unreachable' in way && way.unreachable === 'no way written for it', `${method} ${path} ${status}`).to.equal(false);
      if ('coveredBy' in way) {
        expect(existsSync(way.coveredBy), way.coveredBy).to.equal(true);
        expect(readFileSync(way.coveredBy, 'utf8'), `${way.coveredBy} checks ${status}`).to.include(way.checks);
      }
    }
  });

  for (const { method, path, status } of documented) {
    const way = wayTo(method, path, status);
    if (!('trigger' in way)) continue;
    it(`${method} ${path} answers ${status}`, async () => {
      const res = await way.trigger(c);
      expect(res.status, res.text.slice(0, 300)).to.equal(Number(status));
    });
  }
});
