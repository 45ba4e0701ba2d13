// The MCP tools' JSON Schemas, cut from openapi.yaml: the job filters, the job shape and the overage
// body have one source, so a tool takes and returns exactly what the HTTP routes do.

import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { isDateOrDateTime } from '../query/dates.js';
import { contract } from '../shared/contract.js';

export type JsonSchema = Record<string, unknown>;

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
let ajv: Ajv2020 | undefined;

/**
 * A validator of a tool's input (or part of one): ajv with the formats the contract uses. Amounts in cents
 * are checked exactly by the code that reads them: ajv's multipleOf: 0.01 rejects 0.07 by rounding.
 */
export function inputValidator(schema: unknown): ValidateFunction {
  if (!ajv) {
    ajv = addFormats(new Ajv2020({ strict: false, allErrors: false, validateFormats: true }));
    ajv.addFormat('date-or-date-time', { type: 'string', validate: isDateOrDateTime });
  }
  return ajv.compile(JSON.parse(JSON.stringify(schema), (k, v: unknown) => (k === 'multipleOf' && v === 0.01 ? undefined : v)) as object);
}

interface OpenApi {
  components: { schemas: Record<string, JsonSchema>; parameters: Record<string, { description?: string }> };
}

let spec: OpenApi | undefined;
const openApi = (): OpenApi => (spec ??= contract() as unknown as OpenApi);

/** The description JobFilters gives properties that mean the same as the query parameter of GET /v1/jobs. */
const SAME_AS_QUERY = /^Same rule as the query parameter/;

/**
 * A component schema with every $ref inlined (agents' tool-calling rarely follows $ref), keeping the
 * sibling keywords of a $ref, and the `examples` dropped (they only lengthen the tool list).
 */
export function componentSchema(name: string): JsonSchema {
  return inline(openApi().components.schemas[name]!, []) as JsonSchema;
}

function inline(node: unknown, seen: string[]): unknown {
  if (Array.isArray(node)) return node.map((item) => inline(item, seen));
  if (typeof node !== 'object' || node === null) return node;
  const { $ref, examples: _examples, ...rest } = node as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  if (typeof $ref === 'string') {
    const name = $ref.replace('#/components/schemas/', '');
    if (seen.includes(name)) throw new Error(`openapi.yaml: schema ${name} refers to itself; MCP schemas must be finite`);
    Object.assign(out, inline(openApi().components.schemas[name], [...seen, name]));
  }
  for (const [key, value] of Object.entries(rest)) out[key] = inline(value, seen);
  return out;
}

/**
 * The schemas of the job filters `names` (the filter table's, src/jobs/filter-table.ts) as JSON
 * properties, from openapi.yaml's JobFilters, each with the description of its query parameter of
 * GET /v1/jobs where JobFilters only says "same rule as the query parameter".
 */
export function filterProperties(names: readonly string[]): Record<string, JsonSchema> {
  const { properties } = componentSchema('JobFilters') as { properties: Record<string, JsonSchema> };
  const parameters = openApi().components.parameters;
  return Object.fromEntries(
    names.map((name) => {
      const schema = properties[name];
      if (!schema) throw new Error(`openapi.yaml's JobFilters has no property ${name}, a filter of the filter table`);
      const described = parameters[name]?.description;
      if (
        described &&
        (schema.description === undefined || (typeof schema.description === 'string' && SAME_AS_QUERY.test(schema.description)))
      )
        schema.description = described.trim();
      return [name, schema];
    }),
  );
}

/** The description of the query parameter `name` of GET /v1/jobs (a listing option), if openapi.yaml has one. */
export function parameterDescription(name: string): string | undefined {
  return openApi().components.parameters[name]?.description?.trim();
}

/** An object schema that takes no other properties. */
export function object(properties: Record<string, JsonSchema>, required: string[] = [], description?: string): JsonSchema {
  return { type: 'object', ...(description ? { description } : {}), properties, required, additionalProperties: false };
}
