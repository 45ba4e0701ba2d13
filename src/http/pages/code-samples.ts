// A code sample in curl, JavaScript (fetch) and Python (requests) for every operation of the contract,
// made from the contract itself: the method and path, the path parameters from their schemas, the
// required query parameters, and the first example of a JSON body. The reference (/docs) shows them
// as Redoc's x-codeSamples.

import { deref, type Node } from '../../shared/contract.js';

export interface CodeSample {
  lang: 'curl' | 'JavaScript' | 'Python';
  label: string;
  source: string;
}

/** An example value as it is written in a URL. */
const asText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

/** The sample value of a parameter: its example, else one its schema accepts. */
function sampleValue(parameter: Node): string {
  if (parameter.example !== undefined) return asText(parameter.example);
  const schema = deref(parameter.schema);
  if (schema.example !== undefined) return asText(schema.example);
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return asText(schema.examples[0]);
  if (schema.format === 'uuid') return '0d9f7c52-2b7e-4e43-9a1f-5f3b8c6e1a27';
  if (Array.isArray(schema.enum)) return String(schema.enum[0] as string);
  if (schema.type === 'integer' || schema.type === 'number') return String((schema.minimum as number | undefined) ?? 1);
  if (schema.format === 'date') return '2026-11-01';
  return 'example';
}

/** The first example of the operation's JSON body, if it takes one. */
function sampleBody(operation: Node): unknown {
  const media = deref(operation.requestBody).content as Record<string, Node> | undefined;
  const json = media?.['application/json'];
  if (!json) return undefined;
  if (json.example !== undefined) return json.example;
  const first = Object.values((json.examples ?? {}) as Record<string, Node>)[0];
  return first ? deref(first).value : {};
}

const quoteShell = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
const indent = (text: string, by: string) => text.replace(/\n/g, `\n${by}`);

/** The samples of one operation, calling `base` (the server's own address) with the key in JPS_API_KEY. */
export function codeSamples(base: string, method: string, template: string, operation: Node): CodeSample[] {
  const parameters = ((operation.parameters ?? []) as unknown[]).map((p) => deref(p));
  let path = template;
  for (const p of parameters.filter((p) => p.in === 'path')) path = path.replace(`{${String(p.name)}}`, sampleValue(p));
  const required = parameters.filter((p) => p.in === 'query' && p.required === true);
  const query = new URLSearchParams(required.map((p): [string, string] => [String(p.name), sampleValue(p)]));
  const url = `${base}${path}${query.size > 0 ? `?${query.toString()}` : ''}`;
  const verb = method.toUpperCase();
  const body = sampleBody(operation);
  const json = body === undefined ? undefined : JSON.stringify(body, null, 2);
  const curl = [
    `curl${verb === 'GET' ? '' : ` -X ${verb}`} ${quoteShell(url)}`,
    `  -H "Authorization: Bearer $JPS_API_KEY"`,
    ...(json === undefined ? [] : [`  -H 'Content-Type: application/json'`, `  -d ${quoteShell(JSON.stringify(body))}`]),
  ].join(' \\\n');
  const fetchOptions = [
    `  method: '${verb}',`,
    `  headers: { Authorization: \`Bearer \${process.env.JPS_API_KEY}\`${json === undefined ? '' : ", 'Content-Type': 'application/json'"} },`,
    ...(json === undefined ? [] : [`  body: JSON.stringify(${indent(json, '  ')}),`]),
  ];
  const javascript = [`const res = await fetch('${url}', {`, ...fetchOptions, '});', 'console.log(res.status, await res.json());'].join(
    '\n',
  );
  const python = [
    'import os',
    'import requests',
    '',
    `r = requests.${method.toLowerCase()}(`,
    `    '${url}',`,
    `    headers={'Authorization': f"Bearer {os.environ['JPS_API_KEY']}"},`,
    ...(json === undefined ? [] : [`    json=${indent(pythonLiteral(json), '    ')},`]),
    ')',
    'print(r.status_code, r.json())',
  ].join('\n');
  return [
    { lang: 'curl', label: 'curl', source: curl },
    { lang: 'JavaScript', label: 'JavaScript (fetch)', source: javascript },
    { lang: 'Python', label: 'Python (requests)', source: python },
  ];
}

/** JSON as a Python literal: the same text but for true, false and null. */
function pythonLiteral(json: string): string {
  return json.replace(/("(?:[^"\\]|\\.)*")|\btrue\b|\bfalse\b|\bnull\b/g, (match, string: string | undefined) =>
    string !== undefined ? string : match === 'true' ? 'True' : match === 'false' ? 'False' : 'None',
  );
}
