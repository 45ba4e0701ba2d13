import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startTestAppWithCatalog, type TestApp } from '../support/app.js';
import { output, overHttp, toolError } from '../support/mcp.js';

interface Job {
  job_id: string;
  title: string;
}
interface Page {
  status: string;
  jobs: Job[];
  next_cursor: string | null;
  snapshot_watermark: string;
  charged: { requests: number; records: number };
}
interface Usage {
  requests: { used: number; remaining: number };
  records?: { used: number; limit: number };
  window: { used: number; limit: number };
  confirmation_level: string;
}

const NOW = new Date('2026-11-25T10:00:30Z');
const TOOLS = [
  'count_jobs',
  'get_job',
  'get_usage',
  'list_fields',
  'read_file',
  'search_docs',
  'search_jobs',
  'set_confirmation_level',
  'set_overage',
];

describe('MCP tools over Streamable HTTP (/mcp)', function () {
  this.timeout(240_000);
  let app: TestApp;
  let key: string;
  let accountId: string;
  let client: Client;

  before(async () => {
    app = await startTestAppWithCatalog({ jobs: 300, seed: 8 });
  });
  beforeEach(async () => {
    app.setNow(NOW);
    ({ key, accountId } = await app.account({ plan: 'paid-25k' }));
    client = await overHttp(app.url, key);
  });
  afterEach(() => client?.close());
  after(async () => {
    app?.setNow(undefined);
    await app?.close();
  });

  const call = (name: string, args: Record<string, unknown> = {}) => client.callTool({ name, arguments: args });
  const ledger = async () => {
    await app.service.ctx.meter.idle();
    return app.store.query<{ route: string; method: string; route_class: string; status: number; records_charged: number }>(
      'SELECT route, method, route_class, status, records_charged::int AS records_charged FROM ledger WHERE account_id = $1 ORDER BY seq',
      [accountId],
    );
  };
  const usage = async () => output<Usage>(await call('get_usage'));

  describe('tools/list', () => {
    it('lists the nine tools, each with a description and JSON Schemas of its input and output', async () => {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).to.deep.equal(TOOLS);
      for (const tool of tools) {
        expect(tool.description, tool.name).to.have.length.above(40);
        expect(tool.inputSchema.type, tool.name).to.equal('object');
        expect(tool.outputSchema?.type, tool.name).to.equal('object');
      }
      const search = tools.find((t) => t.name === 'search_jobs')!;
      const props = search.inputSchema.properties as Record<string, { description?: string; maximum?: number; default?: number }>;
      expect(props.limit).to.include({ maximum: 25, default: 10 });
      expect(JSON.stringify(search.inputSchema)).to.not.include('$ref');
    });

    it('lists them in at most 12,000 characters, each input described with an example or its values, no alias among them', async () => {
      const listing = await client.listTools();
      expect(JSON.stringify(listing).length).to.be.at.most(12_000);
      for (const tool of listing.tools) {
        const inputs = Object.entries((tool.inputSchema.properties ?? {}) as Record<string, { description?: string; enum?: unknown[] }>);
        for (const [name, schema] of inputs) {
          expect(schema.description ?? '', `${tool.name}.${name}`).to.match(/e\.g\.|\w/);
          expect(
            /e\.g\./.test(schema.description ?? '') ||
              schema.enum !== undefined ||
              ['limit', 'handle', 'confirm', 'save_to_file', 'job_id', 'file_id', 'offset'].includes(name),
            `${tool.name}.${name}: an example`,
          ).to.equal(true);
          expect(schema.description ?? '', `${tool.name}.${name}`).not.to.match(/\^|\$\/|\[A-Z|percent-encode|query string/);
        }
        for (const alias of ['active', 'remote_type', 'published_since'])
          expect(
            inputs.map(([n]) => n),
            tool.name,
          ).not.to.include(alias);
      }
    });

    it("says in each spending answer what is left: the window, the month's requests and records, as GET /v1/account counts them", async () => {
      const page = output<Page & { standing: Record<string, number> }>(await call('search_jobs', { limit: 3 }));
      await app.service.ctx.meter.idle();
      const account = (
        await app.api.get<{
          window: { limit: number; used: number };
          requests: { remaining: number };
          records: { limit: number; used: number; reserved: number };
        }>('/v1/account', { key })
      ).body;
      // GET /v1/account is one more request of the window and of the month; it returns no records.
      expect(page.standing).to.deep.equal({
        window_left: account.window.limit - account.window.used + 1,
        requests_left: account.requests.remaining + 1,
        records_left: account.records.limit - account.records.used - account.records.reserved,
      });
      expect(account.records.used).to.equal(3);
    });

    it('keeps an answer within max_chars by cutting the longest descriptions, marked, and charges every job it shows', async () => {
      const args = { limit: 5, fields: ['job_id', 'title', 'description'], sort: 'updated' };
      type Described = { job_id: string; description: string };
      const whole = output<{ jobs: Described[] }>(await call('search_jobs', args));
      const size = (o: unknown) => JSON.stringify(o).length;
      const budget = 3000;
      expect(size(whole)).to.be.above(budget);
      const cut = output<{ jobs: Described[]; charged: unknown }>(await call('search_jobs', { ...args, max_chars: budget }));
      expect(cut.jobs.map((j) => j.job_id)).to.deep.equal(whole.jobs.map((j) => j.job_id));
      expect(cut.charged).to.deep.equal({ requests: 1, records: 5 });
      // The tool's own envelope (status, charged, standing) comes on top of the budget.
      expect(size({ ...cut, status: undefined, charged: undefined, standing: undefined })).to.be.at.most(budget);
      expect(cut.jobs.some((j) => j.description.endsWith('…[cut]'))).to.equal(true);
      cut.jobs.forEach((j, i) => expect(whole.jobs[i]!.description.startsWith(j.description.replace(/…\[cut\]$/, ''))).to.equal(true));
      const job_id = whole.jobs[0]!.job_id;
      const full = output<{ job: { description: string } }>(await call('get_job', { job_id }));
      const one = output<{ job: { description: string } }>(await call('get_job', { job_id, max_chars: 1000 }));
      expect(one.job.description).to.match(/…\[cut\]$/);
      expect(full.job.description.startsWith(one.job.description.slice(0, -'…[cut]'.length))).to.equal(true);
      expect(size(one)).to.be.below(size(full));
    });

    it('says how it understood the filters, and which filter to drop when nothing matches', async () => {
      const page = output<{ understood: Record<string, unknown>; hint?: string }>(
        await call('search_jobs', { state: 'tx', q: 'Data Engineers', limit: 1 }),
      );
      expect(page.understood).to.deep.include({ state: 'TX', currentness: ['current'] });
      expect(page.understood.q).to.equal('Data Engineers (searched as the words: data engin)');
      expect(page).not.to.have.property('hint');
      const none = output<{ count: number; hint: string }>(
        await call('count_jobs', { country: 'US', more_filters: { title_advanced: 'zzzyqx' } }),
      );
      expect(none.count).to.equal(0);
      const without = (await app.api.get<{ count: number }>('/v1/jobs/count?country=US', { key })).body.count;
      expect(none.hint).to.equal(`No job matches every filter; without title_advanced, ${without} would.`);
    });

    it('takes every other filter by name in more_filters, and says in plain words what is wrong with one', async () => {
      const advanced = output<Page>(await call('search_jobs', { more_filters: { title_advanced: 'nurse | engineer' }, limit: 3 }));
      const http = await app.api.get<{ data: Job[] }>('/v1/jobs?title_advanced=nurse%20%7C%20engineer&limit=3', { key });
      expect(advanced.jobs.map((j) => j.job_id)).to.deep.equal(http.body.data.map((j) => j.job_id));
      expect(toolError(await call('search_jobs', { more_filters: { active: true } })).message).to.equal(
        'more_filters has no filter named "active"; list_fields lists the filters.',
      );
      expect(toolError(await call('count_jobs', { more_filters: { has_pay: 'yes' } })).message).to.match(
        /^more_filters\.has_pay is not a value/,
      );
      expect(toolError(await call('count_jobs', { state: 'Texas' })).message).to.equal(
        'state is not a value this filter takes: e.g. "TX" (a U.S. state unless country says otherwise).',
      );
      expect(toolError(await call('count_jobs', { state: 'TX', more_filters: { state: 'CA' } })).message).to.match(/send it once/);
    });
  });

  describe('search_jobs', () => {
    it('answers how many match and a page of 10 compact jobs, and pages on through its handle without the filters', async () => {
      const first = output<Page & { total: number; handle: string }>(await call('search_jobs', { country: 'US' }));
      expect(first.status).to.equal('done');
      const http = await app.api.post<{ data: Job[]; next_cursor: string }>('/v1/jobs/search', { country: 'US', limit: 10 }, { key });
      expect(first.jobs.map((j) => j.job_id)).to.deep.equal(http.body.data.map((j) => j.job_id));
      expect(first.total).to.equal((await app.api.get<{ count: number }>('/v1/jobs/count?country=US', { key })).body.count);
      expect(Object.keys(first.jobs[0]!)).to.deep.equal(['job_id', 'title', 'employer', 'place', 'work_arrangement', 'pay', 'posted']);
      expect(first.jobs[0]!.title).to.equal(http.body.data[0]!.title);
      const second = output<Page & { handle: string }>(await call('search_jobs', { handle: first.handle }));
      const httpNext = await app.api.post<{ data: Job[] }>(
        '/v1/jobs/search',
        { country: 'US', limit: 10, cursor: http.body.next_cursor },
        { key },
      );
      expect(second.jobs.map((j) => j.job_id)).to.deep.equal(httpNext.body.data.map((j) => j.job_id));
      expect(first.charged).to.deep.equal({ requests: 1, records: 10 });
      // The handle carries the search: it goes alone, and cannot be altered.
      expect(toolError(await call('search_jobs', { handle: first.handle, country: 'GB' })).message).to.match(
        /^send handle without country/,
      );
      expect(toolError(await call('search_jobs', { handle: `${first.handle}x` })).http_status).to.equal(400);
    });

    it('answers whole jobs, in the shape of POST /v1/jobs/search, when fields is sent', async () => {
      const fields = ['job_id', 'title', 'locations', 'postings'];
      const page = output<Page>(await call('search_jobs', { country: 'US', limit: 3, fields }));
      const http = await app.api.post<{ data: Job[] }>('/v1/jobs/search', { country: 'US', limit: 3, fields }, { key });
      expect(page.jobs).to.deep.equal(http.body.data);
    });

    it('ranks a keyword search like the HTTP route, with fields and limit', async () => {
      const args = { q: 'engineer', limit: 5, fields: ['job_id', 'title'] };
      const page = output<Page>(await call('search_jobs', args));
      const http = await app.api.post<{ data: Job[] }>('/v1/jobs/search', args, { key });
      expect(page.jobs).to.deep.equal(http.body.data);
      expect(Object.keys(page.jobs[0] ?? { job_id: 1, title: 1 }).sort()).to.deep.equal(['job_id', 'title']);
    });

    it('refuses a page over 25, an unknown argument and a bad filter with invalid_request (http_status 400), spending nothing', async () => {
      expect(toolError(await call('search_jobs', { limit: 26 }))).to.include({ code: 'invalid_request', http_status: 400 });
      expect(toolError(await call('search_jobs', { colour: 'red' })).message).to.match(
        /^search_jobs takes no argument "colour"; it takes q, title/,
      );
      // A filter without an input of its own, and an alias of the HTTP API: the message says what to send.
      expect(toolError(await call('search_jobs', { has_pay: true })).message).to.equal(
        'has_pay goes in more_filters, e.g. {"more_filters": {"has_pay": ...}}; list_fields shows its rules.',
      );
      expect(toolError(await call('count_jobs', { remote_type: 'remote' })).message).to.equal(
        'remote_type is not taken here: send work_arrangement instead, e.g. "remote".',
      );
      expect(toolError(await call('search_jobs', { limit: 'ten' })).message).to.equal('limit must be integer (Jobs per page, e.g. 5.)');
      expect(toolError(await call('search_jobs', { more_filters: { title_advanced: 'NOT nurse' } })).message).to.match(
        /positive search term/,
      );
      expect(toolError(await call('search_jobs', { posted_since: 'yesterday' })).http_status).to.equal(400);
      expect((await usage()).requests.used).to.equal(0);
    });

    it('saves every match to a session file that read_file pages through, in listing order, charging one request and the saved jobs', async () => {
      const all: Job[] = [];
      for (let cursor: string | undefined, more = true; more;) {
        const r = await app.api.post<{ data: Job[]; next_cursor: string | null }>(
          '/v1/jobs/search',
          { country: 'US', limit: 250, ...(cursor ? { cursor } : {}) },
          { key },
        );
        all.push(...r.body.data);
        cursor = r.body.next_cursor ?? undefined;
        more = cursor !== undefined;
      }
      const before = await ledger();
      const saved = output<Page & { file: { file_id: string; jobs: number } }>(
        await call('search_jobs', { country: 'US', save_to_file: true }),
      );
      expect(saved.file.jobs).to.equal(all.length);
      expect(saved.charged).to.deep.equal({ requests: 1, records: all.length });
      const read: Job[] = [];
      let offset: number | null = 0;
      while (offset !== null) {
        const r: { jobs: Job[]; next_offset: number | null; total: number } = output(
          await call('read_file', { file_id: saved.file.file_id, offset, limit: 25 }),
        );
        expect(r.total).to.equal(all.length);
        read.push(...r.jobs);
        offset = r.next_offset;
      }
      expect(read).to.deep.equal(all);
      // One request for the save; read_file used none.
      const rows = (await ledger()).slice(before.length);
      expect(rows).to.have.length(1);
      expect(rows[0]).to.include({
        method: 'MCP',
        route: 'mcp/search_jobs',
        route_class: 'jobs_list',
        status: 200,
        records_charged: all.length,
      });
    });

    it('does not let another session read a file, and saves the jobs of a handle from the first', async () => {
      const saved = output<{ file: { file_id: string } }>(await call('search_jobs', { save_to_file: true, limit: 1 }));
      const other = await overHttp(app.url, key);
      try {
        expect(toolError(await other.callTool({ name: 'read_file', arguments: { file_id: saved.file.file_id } }))).to.include({
          code: 'file_not_found',
          http_status: 404,
        });
      } finally {
        await other.close();
      }
      const page = output<Page & { total: number; handle: string }>(await call('search_jobs', { work_arrangement: 'remote', limit: 2 }));
      const file = output<{ file: { file_id: string; jobs: number } }>(
        await call('search_jobs', { handle: page.handle, save_to_file: true }),
      );
      expect(file.file.jobs).to.equal(page.total);
      const read = output<{ jobs: Job[] }>(await call('read_file', { file_id: file.file.file_id, limit: 2 }));
      expect(read.jobs.map((j) => j.job_id)).to.deep.equal(page.jobs.map((j) => j.job_id));
    });
  });

  describe('get_job and count_jobs', () => {
    it('get_job answers the job of GET /v1/jobs/{jobId}; an unknown id is the tool error job_not_found (404)', async () => {
      const [some] = output<Page>(await call('search_jobs', { limit: 1 })).jobs;
      const got = output<{ job: Job; snapshot_watermark: string; charged: unknown }>(
        await call('get_job', { job_id: some!.job_id, include: ['company'] }),
      );
      const http = await app.api.get<{ data: Job }>(`/v1/jobs/${some!.job_id}?include=company`, { key });
      expect(got.job).to.deep.equal(http.body.data);
      expect(got.charged).to.deep.equal({ requests: 1, records: 1 });
      expect(toolError(await call('get_job', { job_id: '00000000-0000-4000-8000-000000000000' }))).to.include({
        code: 'job_not_found',
        http_status: 404,
      });
      expect(toolError(await call('get_job', { job_id: 'not-a-uuid' })).http_status).to.equal(400);
    });

    it('count_jobs answers the count of GET /v1/jobs/count, with groups, and charges no records', async () => {
      const counted = output<{ count: number; groups: { value: string | null; count: number }[]; charged: unknown }>(
        await call('count_jobs', { country: 'US', group_by: 'work_arrangement' }),
      );
      const http = await app.api.get<{ count: number; groups: unknown[] }>('/v1/jobs/count?country=US&group_by=work_arrangement', { key });
      expect(counted.count).to.equal(http.body.count);
      expect(counted.groups).to.deep.equal(http.body.groups);
      expect(counted.charged).to.deep.equal({ requests: 1, records: 0 });
    });
  });

  describe('list_fields, search_docs, get_usage', () => {
    it('list_fields names every filter with its rule, the job fields and the group_by values, using no request', async () => {
      const fields = output<{ filters: { name: string; description: string }[]; fields: { name: string }[]; group_by: string[] }>(
        await call('list_fields'),
      );
      const names = fields.filters.map((f) => f.name);
      expect(names).to.include.members(['q', 'title', 'title_advanced', 'country', 'currentness', 'pay_min', 'posted_since']);
      expect(fields.filters.find((f) => f.name === 'q')!.description).to.match(/title or the description/);
      expect(fields.fields.map((f) => f.name)).to.include.members(['job_id', 'title', 'postings', 'locations']);
      expect(fields.group_by).to.include('country');
      expect((await usage()).requests.used).to.equal(0);
    });

    it('search_docs ranks passages of docs/ and the OpenAPI descriptions', async () => {
      const found = output<{ results: { source: string; title: string; text: string }[] }>(
        await call('search_docs', { query: 'change feed resume cursor', limit: 3 }),
      );
      expect(found.results).to.have.length(3);
      expect(found.results.some((r) => r.source === 'docs/sync-and-exports.md' || /changes/.test(r.title))).to.equal(true);
      const params = output<{ results: { source: string }[] }>(
        await call('search_docs', { query: 'download an export file with a Range header' }),
      );
      expect(params.results.map((r) => r.source)).to.include('openapi.yaml');
    });

    it('search_docs answers 3 excerpts of at most 600 characters, the guide first; a title returns that passage whole', async () => {
      type Docs = { results: { source: string; title: string; text: string; truncated: boolean }[] };
      const found = output<Docs>(await call('search_docs', { query: 'how do bulk exports work' }));
      expect(found.results).to.have.length(3);
      expect(found.results[0]!.source).to.equal('docs/sync-and-exports.md');
      for (const r of found.results) expect(r.text.length).to.be.at.most(600);
      const cut = found.results.find((r) => r.truncated)!;
      expect(cut.text).to.match(/…/);
      const whole = output<Docs>(await call('search_docs', { query: 'how do bulk exports work', title: cut.title }));
      expect(whole.results.length).to.be.at.least(1);
      expect(whole.results.every((r) => r.title === cut.title && !r.truncated)).to.equal(true);
      expect(whole.results.some((r) => r.text.length > 600 && r.text.includes(cut.text.replace(/^…|…$/g, '')))).to.equal(true);
    });

    it('counts one request per search_jobs, get_job and count_jobs call and none for the other tools', async () => {
      await call('list_fields');
      await call('search_docs', { query: 'overage' });
      await call('set_confirmation_level', { level: 'paid_only' });
      const start = await usage();
      expect(start.requests.used).to.equal(0);
      const page = output<Page>(await call('search_jobs', { limit: 25 }));
      await call('get_job', { job_id: page.jobs[0]!.job_id });
      await call('count_jobs', {});
      const end = await usage();
      expect(end.requests.used).to.equal(3);
      expect(end.requests.remaining).to.equal(start.requests.remaining - 3);
      expect(end.records!.used).to.equal(26);
      expect(end.window.used).to.equal(3);
      expect((await ledger()).map((r) => r.route)).to.deep.equal(['mcp/search_jobs', 'mcp/get_job', 'mcp/count_jobs']);
    });
  });
});
