// CORS for browser apps (docs/lifecycle.md): the corsOrigins setting says which origins may call the API
// (default any: the key travels in the Authorization header, never in a cookie, so no credentials are
// allowed). A preflight is answered here, before the API key, and uses neither window nor ledger; every
// other answer carries Access-Control-Allow-Origin and exposes the headers openapi.yaml documents.

import cors from 'cors';
import type { NextFunction, Request, Response } from 'express';
import { documentedHeaders } from '../shared/contract.js';

/** Headers a browser reads without being told (CORS-safelisted response headers). */
const SAFELISTED = ['cache-control', 'content-language', 'content-length', 'content-type', 'expires', 'last-modified', 'pragma'];

/** Every response header openapi.yaml documents, and the MCP session's. */
function exposedHeaders(): string[] {
  return [...documentedHeaders(), 'Mcp-Session-Id'].filter((name) => !SAFELISTED.includes(name.toLowerCase()));
}

/** `*`, `none`, or a comma list of origins. */
function originsOf(setting: string): '*' | string[] | null {
  const value = setting.trim();
  if (value === 'none' || value === '') return null;
  if (value === '*') return '*';
  return value
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
}

const isPreflight = (req: Request) =>
  req.method === 'OPTIONS' && req.headers.origin !== undefined && req.headers['access-control-request-method'] !== undefined;

export function crossOrigin(setting: string) {
  const origins = originsOf(setting);
  const handle = cors({
    origin: origins ?? false,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'],
    exposedHeaders: exposedHeaders(),
    credentials: false,
    maxAge: 7200,
    optionsSuccessStatus: 204,
  });
  return (req: Request, res: Response, next: NextFunction): void => {
    // An OPTIONS that is no preflight is a request like any other (405 with Allow).
    if (origins === null || (req.method === 'OPTIONS' && !isPreflight(req))) return next();
    handle(req, res, next);
  };
}
