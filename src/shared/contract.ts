// The operations of openapi.yaml as the HTTP edge reads them: each path template, its methods, the
// parameters and JSON body properties of each, with their schemas. Routes, 404/405, did-you-mean and the
// words of validation errors all read this one contract.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { load } from 'js-yaml';

export const OPENAPI_FILE = fileURLToPath(new URL('../../openapi.yaml', import.meta.url));

export type Node = Record<string, unknown>;

let parsed: Node | undefined;

/** A fresh copy of openapi.yaml as parsed. */
export function contract(): Node {
  parsed ??= load(readFileSync(OPENAPI_FILE, 'utf8')) as Node;
  return structuredClone(parsed);
}

let spec: Node | undefined;

/** The node a `$ref` points at (followed until it is not one); any other node as it is. */
export function deref(node: unknown): Node {
  spec ??= contract();
  let at = (node ?? {}) as Node;
  while (typeof at.$ref === 'string') {
    let next: unknown = spec;
    for (const part of at.$ref.replace(/^#\//, '').split('/')) next = (next as Node)[part];
    at = next as Node;
  }
  return at;
}

/** The name of the schema a `$ref` names (`#/components/schemas/Uuid` → Uuid), if it is one. */
export function refName(node: unknown): string | undefined {
  const ref = (node as Node | undefined)?.$ref;
  return typeof ref === 'string' ? ref.split('/').pop() : undefined;
}

export interface Parameter {
  in: 'query' | 'path' | 'header';
  /** The schema as written (a `$ref` kept, so its name can be read). */
  schema: unknown;
}

export interface Operation {
  method: string;
  template: string;
  path: RegExp;
  literal: boolean;
  parameters: Map<string, Parameter>;
  /** The top-level properties of its JSON body, through allOf (empty without a body). */
  bodyProperties: Map<string, unknown>;
  /** The body schema, resolved (undefined without a body). */
  body: Node | undefined;
}

/** The top-level properties a body schema declares, its own and those of the schemas it is allOf. */
function propertiesOf(schema: Node, into = new Map<string, unknown>()): Map<string, unknown> {
  for (const part of (schema.allOf ?? []) as unknown[]) propertiesOf(deref(part), into);
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Node)) into.set(name, property);
  return into;
}

function operationOfItem(template: string, method: string, operation: Node): Operation {
  const parameters = new Map<string, Parameter>();
  for (const raw of (operation.parameters ?? []) as unknown[]) {
    const param = deref(raw);
    parameters.set(param.name as string, { in: param.in as Parameter['in'], schema: param.schema });
  }
  const bodyNode = deref(operation.requestBody);
  const json = (bodyNode.content as Node | undefined)?.['application/json'] as Node | undefined;
  const body = json ? deref(json.schema) : undefined;
  // Express routes ignore case and a trailing slash: so does this match.
  const path = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}/?$`, 'i');
  return {
    method: method.toUpperCase(),
    template,
    path,
    literal: !template.includes('{'),
    parameters,
    bodyProperties: body ? propertiesOf(body) : new Map<string, unknown>(),
    body,
  };
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head'];

let operationList: Operation[] | undefined;

/** Every operation of openapi.yaml, literal paths (/v1/jobs/count) before templates that also match them (/v1/jobs/{jobId}). */
export function operations(): Operation[] {
  if (operationList) return operationList;
  operationList = [];
  for (const [template, item] of Object.entries(contract().paths as Record<string, Node>)) {
    for (const [method, operation] of Object.entries(item)) {
      if (METHODS.includes(method)) operationList.push(operationOfItem(template, method, operation as Node));
    }
  }
  operationList.sort((a, b) => Number(b.literal) - Number(a.literal));
  return operationList;
}

let lastAt: { path: string; found: readonly Operation[] } | undefined;

/** The operations of a path: a literal path is matched before templates (GET /v1/jobs/search is not GET /v1/jobs/{jobId}). */
export function operationsAt(path: string): readonly Operation[] {
  // Several stages of one request ask for the same path (known route, UUID case, edge input, validation).
  if (lastAt?.path === path) return lastAt.found;
  const all = operations().filter((o) => o.path.test(path));
  const found = all.some((o) => o.literal) ? all.filter((o) => o.literal) : all;
  lastAt = { path, found };
  return found;
}

/** The operation `method path` answers; HEAD is answered by the GET of the path. */
export function operationOf(method: string, path: string): Operation | undefined {
  const wanted = method === 'HEAD' ? 'GET' : method;
  return operationsAt(path).find((o) => o.method === wanted);
}

/** The methods a path accepts, as the Allow header lists them: HEAD wherever GET is. */
export function allowedMethods(path: string): string[] {
  const methods = new Set(operationsAt(path).map((o) => o.method));
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}

/** The pattern of the Uuid schema: a parameter or property with it holds a UUID. */
export function uuidPattern(): string {
  return deref({ $ref: '#/components/schemas/Uuid' }).pattern as string;
}

/** The names of the response headers openapi.yaml documents (components/headers). */
export function documentedHeaders(): string[] {
  return Object.keys((contract().components as Node).headers as Node);
}
