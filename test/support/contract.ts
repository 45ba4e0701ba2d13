// Checks every response a test receives against openapi.yaml: documented status, headers and body schema.

import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { contract } from '../../src/shared/contract.js';
import { isDateOrDateTime } from '../../src/query/dates.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

interface ResponseObject {
  $ref?: string;
  headers?: Record<string, { $ref?: string; required?: boolean; schema?: unknown }>;
  content?: Record<string, { schema?: unknown }>;
}
type Operation = { responses: Record<string, ResponseObject> };
type PathItem = Record<string, Operation>;

export const openapi = contract() as unknown as {
  paths: Record<string, PathItem>;
  components: Record<string, Record<string, unknown>>;
};

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
addFormats(ajv);
ajv.addFormat('date-or-date-time', { type: 'string', validate: isDateOrDateTime });
ajv.addSchema(openapi, 'openapi');

const validators = new Map<string, ValidateFunction>();
function validatorAt(pointer: string): ValidateFunction {
  let validate = validators.get(pointer);
  if (!validate) {
    validate = ajv.compile({ $ref: `openapi#${pointer}` });
    validators.set(pointer, validate);
  }
  return validate;
}

function escape(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function resolve<T>(node: T & { $ref?: string }): T {
  if (!node.$ref) return node;
  const parts = node.$ref
    .replace(/^#\//, '')
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  let current: unknown = openapi;
  for (const part of parts) current = (current as Record<string, unknown>)[part];
  return resolve(current as T & { $ref?: string });
}

const templates = Object.keys(openapi.paths).map((template) => ({
  template,
  regex: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
  literal: !template.includes('{'),
}));

/** The path template of a concrete path: a literal template wins over a parameterised one. */
export function templateOf(path: string): string | undefined {
  const matches = templates.filter((t) => t.regex.test(path));
  return (matches.find((t) => t.literal) ?? matches[0])?.template;
}

function fail(message: string): never {
  throw new Error(`contract: ${message}`);
}

function checkHeaders(where: string, response: ResponseObject, headers: Headers): void {
  for (const [name, raw] of Object.entries(response.headers ?? {})) {
    const header = resolve(raw);
    const value = headers.get(name);
    if (value === null) {
      if (header.required) fail(`${where}: required header ${name} is missing`);
      continue;
    }
    const schema = header.schema as { type?: string } | undefined;
    if (!schema) continue;
    const typed = schema.type === 'integer' || schema.type === 'number' ? Number(value) : value;
    const validate = ajv.compile(schema);
    if (!validate(typed)) fail(`${where}: header ${name}=${value} ${ajv.errorsText(validate.errors)}`);
  }
}

/**
 * Throws when the response does not match the contract; `body` is the parsed JSON or the raw text. A HEAD
 * answers as the GET of its path does, without a body (openapi.yaml, "HTTP"): its status and headers are
 * checked against the GET operation.
 */
export function checkResponse(method: string, path: string, status: number, headers: Headers, body: unknown): void {
  const template = templateOf(path.split('?')[0]!);
  const where = `${method} ${path} → ${status}`;
  const head = method === 'HEAD';
  const operation = template ? openapi.paths[template]![head ? 'get' : method.toLowerCase()] : undefined;
  if (!operation) {
    // Not a documented operation: only the catalogued 401/404/405 error envelope may answer.
    if (![401, 404, 405].includes(status)) fail(`${where}: undocumented route answered ${status}`);
    if (head) return;
    if (!validatorAt('/components/schemas/Error')(body))
      fail(`${where}: ${ajv.errorsText(validatorAt('/components/schemas/Error').errors)}`);
    return;
  }
  const key = operation.responses[String(status)] ? String(status) : 'default';
  const raw = operation.responses[key];
  if (!raw) fail(`${where}: status ${status} is not documented for ${method} ${template}`);
  const response = resolve(raw);
  checkHeaders(where, response, headers);
  const contentType = (headers.get('content-type') ?? '').split(';')[0]!.trim();
  if (!response.content) return;
  if (!response.content[contentType]) fail(`${where}: content type "${contentType}" is not documented`);
  if (head) {
    if (body !== '') fail(`${where}: a HEAD answer has no body`);
    return;
  }
  if (!contentType.includes('json')) return;
  const pointer = raw.$ref
    ? `${raw.$ref.slice(1)}/content/${escape(contentType)}/schema`
    : `/paths/${escape(template!)}/${method.toLowerCase()}/responses/${key}/content/${escape(contentType)}/schema`;
  const validate = validatorAt(pointer);
  if (!validate(body)) fail(`${where}: body ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 600)}`);
}
