import { expect } from 'chai';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { isDateOrDateTime } from '../../src/query/dates.js';
import { startTestAppWithCatalog, type TestApp } from '../support/app.js';
import { openapi } from '../support/contract.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

interface Example {
  summary?: string;
  value: unknown;
  $ref?: string;
}
interface Media {
  schema?: unknown;
  examples?: Record<string, Example>;
}
interface Operation {
  requestBody?: { content?: Record<string, Media> };
  responses?: Record<string, { $ref?: string; content?: Record<string, Media> }>;
}

function resolve<T>(node: T & { $ref?: string }): T {
  if (!node.$ref) return node;
  let current: unknown = openapi;
  for (const part of node.$ref.replace(/^#\//, '').split('/'))
    current = (current as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  return resolve(current as T & { $ref?: string });
}

function operations(): { method: string; path: string; operation: Operation }[] {
  return Object.entries(openapi.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => ['get', 'post', 'put'].includes(method))
      .map(([method, operation]) => ({ method: method.toUpperCase(), path, operation: operation })),
  );
}

/** Every request body example of the contract: operation, name, value. */
const requestExamples = operations().flatMap(({ method, path, operation }) =>
  Object.entries(operation.requestBody?.content?.['application/json']?.examples ?? {}).map(([name, example]) => ({
    method,
    path,
    name,
    value: resolve(example).value,
  })),
);

/** The es_dsl query examples of the EsDslRequest schema. */
const esDslQueries =
  (openapi.components.schemas!.EsDslRequest as { properties: { query: { examples?: unknown[] } } }).properties.query.examples ?? [];

describe('the examples of openapi.yaml', function () {
  this.timeout(120_000);
  let app: TestApp;
  let key: string;

  before(async () => {
    app = await startTestAppWithCatalog({ jobs: 300, seed: 11 });
    // A plan large enough for the export example's 50,000 records.
    ({ key } = await app.account({ plan: 'paid-500k' }));
  });
  after(() => app?.close());

  it('has request examples to check', () => {
    expect(requestExamples.length).to.be.at.least(6);
    expect(esDslQueries.length).to.be.at.least(1);
  });

  for (const { method, path, name, value } of requestExamples) {
    it(`${method} ${path} accepts its example "${name}"`, async () => {
      const res = await app.api.request(method, path, { key, body: value });
      expect(res.status, res.text).to.be.within(200, 299);
    });
  }

  for (const [i, query] of esDslQueries.entries()) {
    it(`POST /v1/jobs/search/es_dsl accepts the query example ${i + 1} of EsDslRequest`, async () => {
      const res = await app.api.post('/v1/jobs/search/es_dsl', { query }, { key });
      expect(res.status, res.text).to.equal(200);
    });
  }

  it('gives every response example a body its response schema accepts', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addFormat('date-or-date-time', { type: 'string', validate: isDateOrDateTime });
    const wrong: string[] = [];
    for (const { method, path, operation } of operations()) {
      for (const [status, raw] of Object.entries(operation.responses ?? {})) {
        for (const [type, media] of Object.entries(resolve(raw).content ?? {})) {
          if (!media.schema) continue;
          const schema: object = resolve(media.schema as { $ref?: string });
          const validate = ajv.compile({ ...schema, components: openapi.components });
          for (const [name, example] of Object.entries(media.examples ?? {})) {
            if (!validate(resolve(example).value))
              wrong.push(`${method} ${path} ${status} ${type} "${name}": ${ajv.errorsText(validate.errors)}`);
          }
        }
      }
    }
    expect(wrong).to.deep.equal([]);
  });
});
