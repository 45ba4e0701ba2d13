// The pages a person opens without a key: the landing page, the API reference, the usage dashboard and the
// contract. Their assets all come from this server (the reference works offline); the reference carries a sample
// in curl, JavaScript and Python for every operation of the contract, and the guides written for API users.

import { expect } from 'chai';
import { METHODS } from '../../../src/http/pages/reference.js';
import { GUIDES } from '../../../src/shared/guides.js';
import { contract, type Node } from '../../../src/shared/contract.js';
import { startTestAppWithCatalog, type TestApp } from '../../support/app.js';

describe('pages: the landing page, the API reference, the usage dashboard and the contract, without a key', function () {
  this.timeout(120_000);
  let app: TestApp;

  before(async () => {
    app = await startTestAppWithCatalog({ jobs: 60, seed: 17 });
  });
  after(() => app?.close());

  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${app.url}${path}`, { headers });

  it('GET / shows what the service is, the catalog watermark and job count, and links to the reference and the contract', async () => {
    const res = await get('/');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/html/);
    const page = await res.text();
    const catalog = app.service.ctx.publications.catalog!;
    expect(page).to.include(`<strong id="watermark">${catalog.watermark}</strong>`);
    expect(page).to.include(`<strong id="job-count">${catalog.manifest.counts.jobs.toLocaleString('en-US')}</strong>`);
    for (const href of ['/docs', '/openapi.yaml', '/openapi.json', '/docs#tag/Guide:-MCP:-the-API-for-AI-agents'])
      expect(page).to.include(`href="${href}"`);
    expect(page).to.include(`'${app.url}/v1/jobs?limit=5'`);
  });

  it('GET /docs loads the reference with scripts from this server only, and every one of them is served', async () => {
    const page = await (await get('/docs')).text();
    const sources = [...page.matchAll(/(?:src|href|spec-url)="([^"]+)"/g)].map((m) => m[1]!);
    expect(sources).to.include('/assets/redoc.standalone.js').and.include('/docs/openapi.json');
    // Redoc's one request elsewhere (its vendor's logo, from a CDN) is refused by the page's policy.
    expect((await get('/docs')).headers.get('content-security-policy')).to.include("img-src 'self' data:");
    for (const source of sources) {
      expect(source, 'no asset from another host').to.match(/^\//);
      expect((await get(source)).status, source).to.equal(200);
    }
    const script = await get('/assets/redoc.standalone.js', { 'accept-encoding': 'gzip' });
    expect(script.headers.get('content-encoding')).to.equal('gzip');
    expect(script.headers.get('cache-control')).to.include('max-age');
  });

  it('GET /dashboard needs no key, loads its script, uPlot and styles from this server only, under a policy that says so', async () => {
    const res = await get('/dashboard');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-security-policy')).to.include("default-src 'self'");
    const page = await res.text();
    expect(page).to.include('<input id="api-key" type="password"');
    const sources = [...page.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(sources).to.include.members(['/assets/dashboard.js', '/assets/uPlot.iife.min.js', '/assets/uPlot.min.css', '/assets/pages.css']);
    for (const source of sources) {
      expect(source, 'no asset from another host').to.match(/^\//);
      expect((await get(source)).status, source).to.equal(200);
    }
    expect((await get('/assets/dashboard.js')).headers.get('content-type')).to.match(/javascript/);
  });

  it('gives every operation of the contract a sample in curl, JavaScript (fetch) and Python (requests) calling this server', async () => {
    const reference = (await (await get('/docs/openapi.json')).json()) as Node;
    const paths = contract().paths as Record<string, Node>;
    let operations = 0;
    for (const [template, item] of Object.entries(paths)) {
      for (const method of METHODS.filter((m) => item[m] !== undefined)) {
        operations++;
        const samples = ((reference.paths as Record<string, Node>)[template]![method] as Node)['x-codeSamples'] as {
          lang: string;
          source: string;
        }[];
        expect(
          samples.map((s) => s.lang),
          `${method} ${template}`,
        ).to.deep.equal(['curl', 'JavaScript', 'Python']);
        const path = template.replace(/\{[^}]+\}/g, "[^/?']+");
        for (const sample of samples) {
          expect(sample.source, `${sample.lang} ${method} ${template}`).to.match(new RegExp(`${app.url}${path}`));
          expect(sample.source).to.include('JPS_API_KEY');
        }
        if (method !== 'get') expect(samples[0]!.source).to.include(`-X ${method.toUpperCase()}`);
      }
    }
    expect(operations).to.be.greaterThan(15);
  });

  it('runs the curl sample of a POST as written: its body is the contract example and the API accepts it', async () => {
    const { key } = await app.account({ plan: 'paid-25k' });
    const reference = (await (await get('/docs/openapi.json')).json()) as Node;
    const operation = ((reference.paths as Record<string, Node>)['/v1/jobs/search']!.post as Node)['x-codeSamples'] as {
      lang: string;
      source: string;
    }[];
    const curl = operation.find((s) => s.lang === 'curl')!.source;
    const body = /-d '(.*)'$/m.exec(curl)![1]!.replace(/'\\''/g, "'");
    const res = await fetch(`${app.url}/v1/jobs/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body,
    });
    expect(res.status, await res.clone().text()).to.equal(200);
  });

  it('holds the guides written for API users as sections of their own, and no internals', async () => {
    const reference = (await (await get('/docs/openapi.json')).json()) as Node;
    const tags = reference.tags as { name: string; description?: string; 'x-traitTag'?: boolean }[];
    const guides = tags.filter((t) => t['x-traitTag']);
    expect(guides).to.have.length(GUIDES.length);
    expect(guides.map((g) => g.name))
      .to.include('Guide: Text search')
      .and.include('Guide: MCP: the API for AI agents');
    expect(guides.map((g) => g.name).join(' ')).not.to.match(/Architecture|Operations|Deployment|ADR/);
    for (const guide of guides) expect(guide.description!.length, guide.name).to.be.greaterThan(200);
  });

  it('serves the contract as openapi.yaml and openapi.json, without a key', async () => {
    const yaml = await get('/openapi.yaml');
    expect(yaml.status).to.equal(200);
    expect(yaml.headers.get('content-type')).to.match(/^text\/yaml/);
    expect(await yaml.text()).to.include('openapi: 3.1');
    const json = await get('/openapi.json', { 'accept-encoding': 'gzip' });
    expect(json.status).to.equal(200);
    expect(await json.json()).to.deep.equal(contract());
  });

  it('still asks for a key on the API and on a path that is no page', async () => {
    expect((await get('/v1/jobs')).status).to.equal(401);
    const missing = await get('/nothing-here');
    expect(missing.status).to.equal(401);
  });
});
