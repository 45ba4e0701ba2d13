// The validator's verdicts remembered (issue 24): express-openapi-validator looks a request's route up by
// compiling every path of the contract into a regular expression again (path-to-regexp, each request) and
// goes through four promise-chained stages before its schemas run: 0.1-0.15 ms of the main thread for a
// job by id (ADR 0013). What it decides for a GET or HEAD without a body depends on nothing but the method
// and the URL: the operation has no header or cookie parameters (checked here) and no body schema. So a
// URL it passed is passed again without it, with the query as it left it (each parameter read by its
// style and type). A UUID path parameter whose schema is the contract's Uuid (a string and a pattern, no
// other rule) passes exactly when it matches the pattern, so such a segment stands in the key as `{uuid}`
// and one verdict serves every job by id. Refusals are never remembered: each is the validator's own,
// with its words.

import type { Request, RequestHandler } from 'express';
import { deref, operationOf, type Operation } from '../shared/contract.js';
import { inOrder } from './stages.js';

/** At most this many verdicts (first in, first forgotten), of URLs of at most KEY_MOST characters. */
const MOST = 10_000;
const KEY_MOST = 2_048;

/** Schema keywords that say nothing about which values pass. */
const ANNOTATIONS = new Set(['description', 'examples', 'example', 'title', 'deprecated']);

/** The pattern a path parameter's value must match when its schema is a string with a pattern and nothing else. */
function onlyPattern(schema: unknown): RegExp | undefined {
  const resolved = deref(schema);
  const rules = Object.keys(resolved).filter((key) => !ANNOTATIONS.has(key));
  const patternOnly = rules.length === 2 && resolved.type === 'string' && typeof resolved.pattern === 'string';
  return patternOnly ? new RegExp(resolved.pattern as string, 'u') : undefined;
}

interface Shape {
  /** Per segment of the template: the pattern of a parameter that only has one, else undefined. */
  patterns: (RegExp | undefined)[];
  /** False when a header or cookie parameter could make two requests to one URL differ. */
  byUrlAlone: boolean;
}

const shapes = new WeakMap<Operation, Shape>();

function shapeOf(operation: Operation): Shape {
  let shape = shapes.get(operation);
  if (!shape) {
    const patterns = operation.template.split('/').map((segment) => {
      const name = /^\{(.+)\}$/.exec(segment)?.[1];
      const param = name === undefined ? undefined : operation.parameters.get(name);
      return param ? onlyPattern(param.schema) : undefined;
    });
    const byUrlAlone = operation.body === undefined && [...operation.parameters.values()].every((p) => p.in === 'query' || p.in === 'path');
    shapes.set(operation, (shape = { patterns, byUrlAlone }));
  }
  return shape;
}

/** The key of the request's verdict, or undefined when the validator must see it. */
export function verdictKey(req: Request): string | undefined {
  if ((req.method !== 'GET' && req.method !== 'HEAD') || req.body !== undefined || req.url.length > KEY_MOST) return undefined;
  const operation = operationOf(req.method, req.path);
  if (!operation) return undefined;
  const { patterns, byUrlAlone } = shapeOf(operation);
  if (!byUrlAlone) return undefined;
  const at = req.url.indexOf('?');
  const path = at < 0 ? req.url : req.url.slice(0, at);
  const segments = path.split('/').map((segment, i) => (patterns[i]?.test(segment) ? '{uuid}' : segment));
  return `${req.method} ${segments.join('/')}${at < 0 ? '' : req.url.slice(at)}`;
}

type Query = Record<string, unknown>;

/** A copy of a query as the validator leaves it: strings, lists of strings, an object at most one level down. */
function copyOf(query: Query): Query {
  const copy = Object.create(Object.getPrototypeOf(query) as object | null) as Query;
  for (const [name, value] of Object.entries(query))
    copy[name] = Array.isArray(value)
      ? [...(value as unknown[])]
      : typeof value === 'object' && value !== null
        ? structuredClone(value)
        : value;
  return copy;
}

const passed = new Map<string, Query>();

/** Remembers that the validator passed the request of `key`, with the query it left. */
function rememberPassed(key: string, req: Request): void {
  if (passed.size >= MOST) passed.delete(passed.keys().next().value!);
  passed.set(key, copyOf(req.query));
}

/**
 * True when the request of `key` was passed before: its query is then the one the validator left (set as
 * the validator sets it, an own property over Express's getter).
 */
function passedBefore(key: string, req: Request): boolean {
  const query = passed.get(key);
  if (!query) return false;
  Object.defineProperty(req, 'query', { writable: true, value: copyOf(query) });
  return true;
}

/** The validator's stages, in order; a request they passed before skips them. */
export function remembering(stages: RequestHandler[]): RequestHandler {
  const validate = inOrder(stages);
  return (req, res, next) => {
    const key = verdictKey(req);
    if (key !== undefined && passedBefore(key, req)) return next();
    validate(req, res, (error?: unknown) => {
      if (error === undefined && key !== undefined) rememberPassed(key, req);
      next(error);
    });
  };
}
