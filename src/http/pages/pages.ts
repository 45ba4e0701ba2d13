// Pages a person opens, without a key: the landing page (/), the API reference (/docs, Redoc from npm),
// the usage dashboard (/dashboard: its script asks for the key and reads the API with it, uPlot from npm)
// and the contract (/openapi.yaml, /openapi.json). Every asset is served from here: nothing from a CDN.

import express, { type Request, type Response, type Router } from 'express';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { AppContext } from '../../context.js';
import { contract, OPENAPI_FILE } from '../../shared/contract.js';
import { dashboardPage, docsPage, landingPage } from './html.js';
import { referenceDocument } from './reference.js';

const resolve = createRequire(import.meta.url).resolve;
/** Files of packages the pages load, by the name they are served under (/assets/<name>). */
const VENDOR: Record<string, string> = {
  'redoc.standalone.js': resolve('redoc/bundles/redoc.standalone.js'),
  'uPlot.iife.min.js': resolve('uplot/dist/uPlot.iife.min.js'),
  'uPlot.min.css': resolve('uplot/dist/uPlot.min.css'),
};
const OWN_ASSETS = fileURLToPath(new URL('./assets/', import.meta.url));
const ASSET_CACHE = 'public, max-age=3600';

/** The address the caller reached this server at (what the reference's samples call). */
const baseOf = (req: Request) => `${req.protocol}://${req.get('host') ?? 'localhost'}`;

/**
 * What a page may load: its own server's scripts, styles and images only. Redoc draws its vendor's logo from
 * a CDN (an <img> it always renders): refused here, so the reference makes no request elsewhere.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "img-src 'self' data:",
  // Redoc (styled-components) and uPlot set styles from script.
  "style-src 'self' 'unsafe-inline'",
  // Redoc's search index runs in a worker made from a blob.
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

function html(res: Response, page: string): void {
  res.status(200).type('html').set('Cache-Control', 'no-cache').set('Content-Security-Policy', CONTENT_SECURITY_POLICY).send(page);
}

export function pagesRouter(ctx: AppContext): Router {
  const router = express.Router();
  const references = new Map<string, string>();
  router.get('/', (req, res) => {
    const catalog = ctx.publications.catalog;
    html(res, landingPage(baseOf(req), { watermark: catalog?.watermark ?? null, jobs: catalog?.manifest.counts.jobs ?? null }));
  });
  router.get('/docs', (_req, res) => html(res, docsPage()));
  router.get('/dashboard', (_req, res) => html(res, dashboardPage()));
  router.get('/docs/openapi.json', (req, res) => {
    const base = baseOf(req);
    // One document per address the server is reached at (a handful): built once each.
    if (!references.has(base) && references.size < 16) references.set(base, JSON.stringify(referenceDocument(base)));
    res
      .type('json')
      .set('Cache-Control', 'no-cache')
      .send(references.get(base) ?? JSON.stringify(referenceDocument(base)));
  });
  router.get('/openapi.yaml', (_req, res) => res.type('text/yaml; charset=utf-8').set('Cache-Control', 'no-cache').sendFile(OPENAPI_FILE));
  router.get('/openapi.json', (_req, res) => res.set('Cache-Control', 'no-cache').json(contract()));
  for (const [name, file] of Object.entries(VENDOR))
    router.get(`/assets/${name}`, (_req, res) => res.set('Cache-Control', ASSET_CACHE).sendFile(file));
  router.use(
    '/assets',
    express.static(OWN_ASSETS, { fallthrough: true, maxAge: 0, setHeaders: (res) => res.set('Cache-Control', 'no-cache') }),
  );
  return router;
}
