import { expect } from 'chai';
import { startTestAppWithCatalog, type TestApp } from '../support/app.js';
import { openapi } from '../support/contract.js';

interface JobPage {
  data: { job_id: string; company_id: string | null }[];
}
interface LedgerRow {
  method: string;
  status: number;
  records_charged: number;
}

describe('HTTP manners: Allow on 405, WWW-Authenticate on 401, HEAD where GET exists', function () {
  this.timeout(120_000);
  let app: TestApp;
  let key: string;
  let accountId: string;

  before(async () => {
    app = await startTestAppWithCatalog({ jobs: 60, seed: 17 });
  });
  beforeEach(async () => {
    ({ key, accountId } = await app.account({ plan: 'paid-25k' }));
  });
  after(() => app?.close());

  const ledger = async () => {
    await app.service.ctx.meter.idle();
    return app.store.query<LedgerRow>(
      'SELECT method, status, records_charged::int AS records_charged FROM ledger WHERE account_id = $1 ORDER BY seq',
      [accountId],
    );
  };

  describe('405 method_not_allowed', () => {
    const cases: [string, string, string][] = [
      ['DELETE', '/v1/jobs', 'GET, HEAD'],
      ['POST', '/v1/jobs', 'GET, HEAD'],
      ['GET', '/v1/jobs/search', 'POST'],
      ['PATCH', '/v1/account/overage', 'PUT'],
      ['PUT', '/v1/jobs/exports', 'GET, HEAD, POST'],
      ['POST', '/v1/jobs/00000000-0000-4000-8000-000000000000', 'GET, HEAD'],
    ];
    for (const [method, path, allow] of cases) {
      it(`answers ${method} ${path} with Allow: ${allow}, and says it in the message`, async () => {
        const res = await app.api.request<{ error: { code: string; message: string } }>(method, path, { key });
        expect(res.status).to.equal(405);
        expect(res.body.error.code).to.equal('method_not_allowed');
        expect(res.headers.get('allow')).to.equal(allow);
        expect(res.body.error.message).to.include(allow);
      });
    }
  });

  describe('401 invalid_api_key', () => {
    it('carries WWW-Authenticate: Bearer with a realm when no key was sent', async () => {
      const res = await app.api.get('/v1/jobs');
      expect(res.status).to.equal(401);
      expect(res.headers.get('www-authenticate')).to.equal('Bearer realm="jobs-api"');
    });

    it('adds error="invalid_token" when a key was sent but is not valid', async () => {
      const res = await app.api.get('/v1/jobs', { key: 'jps_live_aaaaaaaaaaaaaaaa.nope' });
      expect(res.status).to.equal(401);
      expect(res.headers.get('www-authenticate')).to.match(/^Bearer realm="jobs-api", error="invalid_token", error_description="[^"]+"$/);
    });

    it('asks for Bearer also when another scheme was sent', async () => {
      const res = await app.api.get('/v1/jobs', { headers: { authorization: 'Basic Zm9vOmJhcg==' } });
      expect(res.status).to.equal(401);
      expect(res.headers.get('www-authenticate')).to.equal('Bearer realm="jobs-api"');
    });
  });

  describe('HEAD', () => {
    const getOperations = () =>
      Object.entries(openapi.paths)
        .filter(([path, item]) => item.get && path.startsWith('/v1/'))
        .map(([path]) => path);

    it('is answered on every GET route of openapi.yaml with the status of the GET', async () => {
      const page = await app.api.get<JobPage>('/v1/jobs?limit=1', { key });
      const sample: Record<string, string> = {
        '{jobId}': page.body.data[0]!.job_id,
        '{exportId}': '00000000-0000-4000-8000-000000000000',
        '{companyId}': '00000000-0000-4000-8000-000000000000',
        '{n}': '1',
      };
      for (const template of getOperations()) {
        const path =
          template.replace(/\{[^}]+\}/g, (p) => sample[p]!) + (template === '/v1/jobs/changes' ? '?since=2026-11-01T00:00:00Z' : '');
        const get = await app.api.get<{ error?: { code: string } }>(path, { key });
        expect(get.body.error?.code, template).not.to.be.oneOf(['route_not_found', 'method_not_allowed']);
        const head = await app.api.head(path, { key });
        expect(head.status, template).to.equal(get.status);
        expect(head.text, template).to.equal('');
      }
      expect((await app.api.head('/healthz')).status).to.equal(200);
    });

    it('answers with the status and headers of the GET, without a body', async () => {
      const get = await app.api.get<JobPage>('/v1/jobs?limit=5', { key });
      const head = await app.api.head('/v1/jobs?limit=5', { key });
      expect(head.status).to.equal(200);
      expect(head.text).to.equal('');
      expect(head.headers.get('content-type')).to.equal(get.headers.get('content-type'));
      for (const name of ['x-request-id', 'ratelimit-limit', 'x-data-records-used', 'server-timing'])
        expect(head.headers.get(name), name).to.be.a('string');
      const job = get.body.data[0]!.job_id;
      expect((await app.api.head(`/v1/jobs/${job}`, { key })).status).to.equal(200);
    });

    it('goes through validation: a bad parameter answers 400, an unknown path 404', async () => {
      expect((await app.api.head('/v1/jobs?limit=0', { key })).status).to.equal(400);
      expect((await app.api.head('/v1/jobs?limit=0x10', { key })).status).to.equal(400);
      expect((await app.api.head('/v1/jobs?page=2', { key })).status).to.equal(400);
      expect((await app.api.head('/v1/jobs/not-a-uuid', { key })).status).to.equal(400);
      expect((await app.api.head('/v1/nothing', { key })).status).to.equal(404);
      expect((await app.api.head('/v1/jobs')).status).to.equal(401);
    });

    it('counts one request like its GET and charges no records: it sends none', async () => {
      const head = await app.api.head('/v1/jobs?limit=7', { key });
      expect(head.status).to.equal(200);
      expect(head.headers.get('x-data-records-charged')).to.equal('0');
      const count = await app.api.head('/v1/jobs/count', { key });
      expect(count.headers.get('x-data-records-charged')).to.equal('0');
      expect(Number(count.headers.get('x-data-requests-used'))).to.equal(Number(head.headers.get('x-data-requests-used')) + 1);
      expect(await ledger()).to.deep.equal([
        { method: 'HEAD', status: 200, records_charged: 0 },
        { method: 'HEAD', status: 200, records_charged: 0 },
      ]);
    });

    it('answers an export file with its Content-Length and Accept-Ranges, and no body', async () => {
      const created = await app.api.post<{ export_id: string }>('/v1/jobs/exports', { max_records: 5 }, { key });
      expect(created.status, created.text).to.equal(202);
      await app.service.exportRunner.idle();
      const path = `/v1/jobs/exports/${created.body.export_id}/files/1`;
      const file = await app.api.download(path, { key });
      const head = await app.api.head(path, { key });
      expect(head.status).to.equal(200);
      expect(head.headers.get('content-length')).to.equal(String(file.body.length));
      expect(head.headers.get('accept-ranges')).to.equal('bytes');
      expect(head.headers.get('content-type')).to.equal('application/gzip');
    });
  });
});
