// Refuses at the edge, before validation, the input no handler, store or engine may see: a NUL character
// or an unpaired UTF-16 surrogate in a query string or a JSON body (PostgreSQL text and jsonb cannot hold
// them), and a number in a query string written other than in plain decimal digits (the validator reads
// query values with Number(), which takes 0x10, 1e1, +10 and " 10") or too long to be a finite number.

import type { NextFunction, Request, Response } from 'express';
import { invalidRequest } from '../errors.js';
import { numericQueryParametersOf, type NumberKind } from './validation.js';

/** A high surrogate not followed by a low one, or a low surrogate not preceded by a high one. */
const UNPAIRED = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const unstorable = (text: string) => text.includes('\u0000') || UNPAIRED.test(text);

const PLAIN: Record<NumberKind, RegExp> = { integer: /^\d+$/, number: /^\d+(\.\d+)?$/ };

const ACCEPTED = 'send text only, in UTF-8 (a NUL character or an unpaired surrogate such as \\ud800 cannot be stored)';

type Where = 'query parameter' | 'body property';

/** Walks every string (values and property names) without recursion: a 16 KB body can nest 8,000 deep. */
function checkStrings(root: unknown, where: Where): void {
  const stack: [unknown, string][] = [[root, '']];
  while (stack.length > 0) {
    const [value, path] = stack.pop()!;
    if (typeof value === 'string') {
      if (unstorable(value))
        throw invalidRequest(`${where} '${path || '(the body)'}' must not contain a NUL character or an unpaired surrogate: ${ACCEPTED}.`);
    } else if (Array.isArray(value)) {
      value.forEach((item, i) => stack.push([item, where === 'query parameter' ? path : `${path}.${i}`]));
    } else if (typeof value === 'object' && value !== null) {
      for (const [name, item] of Object.entries(value)) {
        if (unstorable(name))
          throw invalidRequest(
            `${where} name ${JSON.stringify(name)} must not contain a NUL character or an unpaired surrogate: ${ACCEPTED}.`,
          );
        stack.push([item, path ? `${path}.${name}` : name]);
      }
    }
  }
}

function checkNumbers(req: Request): void {
  const numeric = numericQueryParametersOf(req.method, req.path);
  for (const [name, kind] of numeric) {
    const raw: unknown = req.query[name];
    for (const value of Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]) {
      const shown = JSON.stringify(String(value).slice(0, 40));
      // Over 308 digits Number() reads Infinity, which the validator lets through and no engine can take.
      if (typeof value === 'string' && PLAIN[kind].test(value)) {
        if (Number.isFinite(Number(value))) continue;
        throw invalidRequest(`query parameter '${name}' is a number too large to read (${value.length} digits); got ${shown}.`);
      }
      throw invalidRequest(
        kind === 'integer'
          ? `query parameter '${name}' must be a whole number in plain decimal digits, e.g. ${name}=25; got ${shown}.`
          : `query parameter '${name}' must be a number in plain decimal digits with an optional decimal point, e.g. ${name}=50000.50; got ${shown}.`,
      );
    }
  }
}

export function edgeInput() {
  return (req: Request, _res: Response, next: NextFunction): void => {
    checkStrings(req.query, 'query parameter');
    if (req.body !== undefined) checkStrings(req.body, 'body property');
    checkNumbers(req);
    next();
  };
}
