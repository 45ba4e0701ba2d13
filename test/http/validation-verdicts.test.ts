import { expect } from 'chai';
import type { Request } from 'express';
import { verdictKey } from '../../src/http/validation-verdicts.js';
import { startTestAppWithCatalog, type TestApp } from '../support/app.js';

interface Job {
  job_id: string;
  [field: string]: unknown;
}
interface ErrorBody {
  error: { code: string; message: string };
}

const request = (method: string, url: string, body?: unknown) => ({ method, url, path: url.split('?')[0], body }) as unknown as Request;

describe('validation verdicts remembered for a GET without a body', function () {
  this.timeout(120_000);

  describe('the key of a verdict', () => {
    const A = '0b6f3c1e-8d2a-4c5b-9e7f-1a2b3c4d5e6f';
    const B = 'ffffffff-0000-4000-8000-000000000001';

    it('is one for every lower-case UUID in a Uuid path parameter, and keeps any other segment and the query', () => {
      expect(verdictKey(request('GET', `/v1/jobs/${A}`))).to.equal(verdictKey(request('GET', `/v1/jobs/${B}`)));
      expect(verdictKey(request('GET', `/v1/jobs/${A}`))).to.equal('GET /v1/jobs/{uuid}');
      expect(verdictKey(request('GET', '/v1/jobs/not-a-uuid'))).to.equal('GET /v1/jobs/not-a-uuid');
      expect(verdictKey(request('GET', `/v1/jobs/${A.toUpperCase()}`))).to.equal(`GET /v1/jobs/${A.toUpperCase()}`);
      expect(verdictKey(request('HEAD', `/v1/jobs/${A}?fields=title`))).to.equal('HEAD /v1/jobs/{uuid}?fields=title');
      expect(verdictKey(request('GET', '/v1/jobs?limit=5'))).to.not.equal(verdictKey(request('GET', '/v1/jobs?limit=6')));
    });

    it('is none for a request with a body, another method, an unknown route or a very long URL', () => {
      expect(verdictKey(request('POST', '/v1/jobs/search', { q: 'nurse' }))).to.equal(undefined);
      expect(verdictKey(request('GET', '/v1/jobs', {}))).to.equal(undefined);
      expect(verdictKey(request('GET', '/v1/nothing'))).to.equal(undefined);
      expect(verdictKey(request('GET', `/v1/jobs?q=${'a'.repeat(3000)}`))).to.equal(undefined);
    });
  });

  describe('answers', () => {
    let app: TestApp;
    let key: string;
    let id: string;

    before(async () => {
      app = await startTestAppWithCatalog({ jobs: 300, seed: 11 });
      ({ key } = await app.account({ plan: 'paid-500k' }));
      id = (await app.api.get<{ data: Job[] }>('/v1/jobs?limit=1', { key })).body.data[0]!.job_id;
    });
    after(() => app?.close());

    const twice = async <T>(path: string) => [await app.api.get<T>(path, { key }), await app.api.get<T>(path, { key })];

    it('refuses a malformed job id with the same words after a valid id was passed', async () => {
      expect((await app.api.get(`/v1/jobs/${id}`, { key })).status).to.equal(200);
      const malformed = `${id.slice(0, -1)}g`;
      const answers = await twice<ErrorBody>(`/v1/jobs/${malformed}`);
      for (const answer of answers) expect(answer.status).to.equal(400);
      expect(answers[0]!.body.error.message).to.include('jobId').and.to.equal(answers[1]!.body.error.message);
      expect((await app.api.get(`/v1/jobs/${id}`, { key })).status).to.equal(200);
    });

    it('gives the query as the validator left it on every request: a repeated fields, a limit', async () => {
      const shaped = await twice<{ data: Job }>(`/v1/jobs/${id}?fields=title&fields=employer_name`);
      for (const answer of shaped) {
        expect(answer.status).to.equal(200);
        expect(Object.keys(answer.body.data).sort()).to.deep.equal(['employer_name', 'job_id', 'title']);
      }
      expect(shaped[1]!.body).to.deep.equal(shaped[0]!.body);
      const pages = await twice<{ data: Job[] }>('/v1/jobs?limit=3');
      expect(pages.map((page) => page.body.data.length)).to.deep.equal([3, 3]);
    });

    it('refuses an unknown query parameter on every request', async () => {
      const answers = await twice<ErrorBody>('/v1/jobs?limit=2&colour=blue');
      expect(answers.map((answer) => answer.status)).to.deep.equal([400, 400]);
      expect(answers[0]!.body.error.message).to.include('colour').and.to.equal(answers[1]!.body.error.message);
    });
  });
});
