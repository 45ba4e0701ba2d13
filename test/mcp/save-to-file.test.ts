import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { FILE_JOBS } from '../../src/mcp/tools/jobs.js';
import { startTestAppWithCatalog, type TestApp } from '../support/app.js';
import { output, overHttp } from '../support/mcp.js';

interface Job {
  job_id: string;
}

describe('MCP search_jobs save_to_file over more matches than a file holds', function () {
  this.timeout(300_000);
  let app: TestApp;
  let client: Client;
  let key: string;

  before(async () => {
    app = await startTestAppWithCatalog({ jobs: 6500, seed: 12 });
    ({ key } = await app.account({ plan: 'paid-25k' }));
    client = await overHttp(app.url, key);
  });
  after(async () => {
    await client?.close();
    await app?.close();
  });

  it(`writes the first ${FILE_JOBS} jobs of the listing, charged as ${FILE_JOBS} records and one request`, async () => {
    const matching = output<{ count: number }>(await client.callTool({ name: 'count_jobs', arguments: {} })).count;
    expect(matching).to.be.above(FILE_JOBS);
    const saved = output<{ file: { file_id: string; jobs: number }; charged: unknown }>(
      await client.callTool({ name: 'search_jobs', arguments: { save_to_file: true, fields: ['job_id'] } }),
    );
    expect(saved.file.jobs).to.equal(FILE_JOBS);
    expect(saved.charged).to.deep.equal({ requests: 1, records: FILE_JOBS });

    const listed: Job[] = [];
    let cursor: string | null = null;
    while (listed.length < FILE_JOBS) {
      const page: { body: { data: Job[]; next_cursor: string | null } } = await app.api.get(
        `/v1/jobs?fields=job_id&limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        { key },
      );
      listed.push(...page.body.data);
      cursor = page.body.next_cursor;
    }
    const last: { jobs: Job[]; next_offset: number | null } = output(
      await client.callTool({ name: 'read_file', arguments: { file_id: saved.file.file_id, offset: FILE_JOBS - 25, limit: 25 } }),
    );
    expect(last.next_offset).to.equal(null);
    expect(last.jobs).to.deep.equal(listed.slice(FILE_JOBS - 25, FILE_JOBS));
    const first: { jobs: Job[] } = output(
      await client.callTool({ name: 'read_file', arguments: { file_id: saved.file.file_id, limit: 25 } }),
    );
    expect(first.jobs).to.deep.equal(listed.slice(0, 25));
  });
});
