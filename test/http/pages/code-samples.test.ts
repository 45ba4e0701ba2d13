// Code samples made from an operation of the contract: what each language's sample sends.

import { expect } from 'chai';
import { codeSamples } from '../../../src/http/pages/code-samples.js';
import { contract, type Node } from '../../../src/shared/contract.js';

const operation = (template: string, method: string) => (contract().paths as Record<string, Node>)[template]![method] as Node;

describe('code samples from the contract', () => {
  it('fills path parameters from their schemas and sends the key as a bearer token', () => {
    const [curl, js, python] = codeSamples('http://h:1', 'get', '/v1/jobs/{jobId}', operation('/v1/jobs/{jobId}', 'get'));
    expect(curl!.source).to.match(/^curl 'http:\/\/h:1\/v1\/jobs\/[0-9a-f-]{36}' \\\n {2}-H "Authorization: Bearer \$JPS_API_KEY"$/);
    expect(js!.source).to.include("await fetch('http://h:1/v1/jobs/").and.include("method: 'GET'");
    expect(python!.source).to.include('requests.get(').and.include("os.environ['JPS_API_KEY']");
  });

  it('sends the first example of a JSON body, in each language as that language writes it', () => {
    const [curl, js, python] = codeSamples('http://h:1', 'post', '/v1/jobs/search', operation('/v1/jobs/search', 'post'));
    const body = /-d '(.*)'$/m.exec(curl!.source)![1]!.replace(/'\\''/g, "'");
    const example = JSON.parse(body) as unknown;
    expect(js!.source).to.include('body: JSON.stringify(').and.include("'Content-Type': 'application/json'");
    expect(python!.source).to.include('json=');
    // The Python literal reads back as the same value: JSON's true/false/null are Python's True/False/None.
    const literal = /json=([\s\S]*),\n\)/.exec(python!.source)![1]!;
    const asJson = literal.replace(/("(?:[^"\\]|\\.)*")|\bTrue\b|\bFalse\b|\bNone\b/g, (m, s: string | undefined) =>
      s !== undefined ? s : m === 'True' ? 'true' : m === 'False' ? 'false' : 'null',
    );
    expect(JSON.parse(asJson)).to.deep.equal(example);
  });

  it('keeps a quote inside a body example intact in the shell', () => {
    const [curl] = codeSamples('http://h:1', 'post', '/x', {
      requestBody: { content: { 'application/json': { example: { q: "nurse's aide", remote: true } } } },
    });
    expect(curl!.source).to.include(`-d '{"q":"nurse'\\''s aide","remote":true}'`);
  });
});
