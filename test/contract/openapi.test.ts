import { expect } from 'chai';
import { startTestApp, type TestApp } from '../support/app.js';
import { openapi } from '../support/contract.js';
import { ROUTES } from '../../src/http/routes.js';

const SPEC_ROUTES = [
  'GET /v1/jobs',
  'POST /v1/jobs/search',
  'POST /v1/jobs/search/es_dsl',
  'GET /v1/jobs/count',
  'GET /v1/jobs/changes',
  'GET /v1/jobs/{jobId}',
  'POST /v1/jobs/exports',
  'GET /v1/jobs/exports',
  'GET /v1/jobs/exports/{exportId}',
  'GET /v1/jobs/exports/{exportId}/files/{n}',
  'GET /v1/companies',
  'POST /v1/companies/search',
  'GET /v1/companies/{companyId}',
  'GET /v1/companies/{companyId}/jobs',
  'PUT /v1/account/overage',
  'GET /v1/usage/requests',
  'GET /v1/usage/analytics',
];
/** Routes this service adds to the spec's: where the account stands, for the usage dashboard (issue 21); trends (issue 23). */
const ADDED_ROUTES = ['GET /v1/account', 'GET /v1/jobs/trends'];

function documentedRoutes(): string[] {
  const methods = ['get', 'put', 'post', 'delete', 'patch'];
  return Object.entries(openapi.paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((m) => methods.includes(m))
      .map((m) => `${m.toUpperCase()} ${path}`),
  );
}

describe('openapi.yaml', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  it('describes the 17 routes of spec section 4 under /v1, the routes it adds, and /healthz', () => {
    const routes = documentedRoutes();
    expect(routes.filter((r) => r.includes(' /v1/')).sort()).to.deep.equal([...SPEC_ROUTES, ...ADDED_ROUTES].sort());
    expect(routes).to.include('GET /healthz');
    expect((openapi as unknown as { info: { version: string } }).info.version).to.equal('0.1.0');
  });

  it('has each documented route once in the route table (src/http/routes.ts), which mounts and classes them', () => {
    const table = ROUTES.map((r) => `${r.method} ${r.path.replace(/:([A-Za-z]+)/g, '{$1}')}`);
    expect(table.sort()).to.deep.equal(
      documentedRoutes()
        .filter((r) => r.includes(' /v1/'))
        .sort(),
    );
  });

  it('has every documented route mounted in the app', async () => {
    const { key } = await app.account();
    const sample: Record<string, string> = {
      '{jobId}': '00000000-0000-4000-8000-000000000000',
      '{exportId}': '00000000-0000-4000-8000-000000000000',
      '{companyId}': '00000000-0000-4000-8000-000000000000',
      '{n}': '1',
    };
    for (const route of [...SPEC_ROUTES, ...ADDED_ROUTES]) {
      const [method, template] = route.split(' ') as [string, string];
      const path = template.replace(/\{[^}]+\}/g, (p) => sample[p]!);
      const body =
        method === 'GET'
          ? undefined
          : route.includes('es_dsl')
            ? { query: { match_all: {} } }
            : route.includes('overage')
              ? { enabled: true }
              : {};
      const res = await app.api.request<{ error?: { code: string } }>(method, path, { key, body });
      expect(res.body.error?.code ?? 'ok', route).not.to.be.oneOf(['route_not_found', 'method_not_allowed']);
    }
  });
});
