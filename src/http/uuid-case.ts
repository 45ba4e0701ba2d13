// Upper-case UUIDs are accepted (docs/errors.md): before validation, a UUID written with upper-case hex
// digits is lower-cased where a UUID is expected (a path parameter, a query parameter or a top-level JSON
// property whose schema is the contract's Uuid), so 0B6F3C1E-… finds the same job as 0b6f3c1e-….

import type { NextFunction, Request, Response } from 'express';
import { deref, operationOf, uuidPattern, type Node, type Operation } from '../shared/contract.js';
import { ANY_CASE_UUID } from '../shared/ids.js';

const isUpperUuid = (value: unknown): value is string =>
  typeof value === 'string' && ANY_CASE_UUID.test(value) && value !== value.toLowerCase();

const holdsUuid = (schema: unknown) => deref(schema).pattern === uuidPattern();

/** The path with its UUID parameters lower-cased: every path parameter of this API that holds a UUID is an id. */
function lowerPath(path: string, op: Operation): string {
  const template = op.template.split('/');
  return path
    .split('/')
    .map((segment, i) => (template[i]?.startsWith('{') && isUpperUuid(segment) ? segment.toLowerCase() : segment))
    .join('/');
}

/** The query string with the values of its UUID parameters lower-cased (UUIDs need no percent-encoding). */
function lowerQuery(query: string, op: Operation): string {
  return query
    .split('&')
    .map((pair) => {
      const at = pair.indexOf('=');
      if (at < 0) return pair;
      const param = op.parameters.get(decodeURIComponent(pair.slice(0, at).replace(/\+/g, ' ')));
      const value = pair.slice(at + 1);
      return param?.in === 'query' && holdsUuid(param.schema) && isUpperUuid(value) ? `${pair.slice(0, at)}=${value.toLowerCase()}` : pair;
    })
    .join('&');
}

export function uuidCase() {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const op = operationOf(req.method, req.path);
    if (!op) return next();
    if (/[A-F]/.test(req.url)) {
      const at = req.url.indexOf('?');
      const [path, query] = at < 0 ? [req.url, undefined] : [req.url.slice(0, at), req.url.slice(at + 1)];
      // Express reads req.path and req.query from req.url afresh each time.
      req.url = lowerPath(path, op) + (query === undefined ? '' : `?${lowerQuery(query, op)}`);
    }
    const body = req.body as Node | undefined;
    if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
      for (const [name, schema] of op.bodyProperties)
        if (isUpperUuid(body[name]) && holdsUuid(schema)) body[name] = body[name].toLowerCase();
    }
    next();
  };
}
