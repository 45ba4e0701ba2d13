// Compression of JSON answers (and of the pages' text: HTML, scripts, styles, the contract): brotli or
// gzip as Accept-Encoding asks, at levels that cost little CPU (chosen by bench/compression.ts; figures in
// bench/README.md). Small bodies, HEAD answers and anything else (export files are gzip or Parquet
// already, and keep their Content-Length and ranges) go as they are. The answer is settled before its
// first byte as before (http/metering.ts): compression only changes the bytes after that, and a
// connection cut before the last compressed byte still refunds. A request without Accept-Encoding is
// never compressed (the library's rule): it skips the library's wrappers of the response, which cost a
// job by id about a tenth of its main thread (ADR 0013), and only gains the Vary they would have set.

import { constants } from 'node:zlib';
import compression from 'compression';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import onHeaders from 'on-headers';

/** gzip level and brotli quality: see "Compression" in bench/README.md for the figures that chose them. */
export const GZIP_LEVEL = 4;
export const BROTLI_QUALITY = 4;
/** Below this many bytes a body is sent as it is: compressing would save less than it costs. */
export const THRESHOLD_BYTES = 1024;

const isText = (res: Response) =>
  /^(?:application\/(?:[\w.-]+\+)?json|text\/(?:html|css|javascript|yaml|csv)|application\/javascript)\b/i.test(
    String(res.getHeader('Content-Type') ?? ''),
  );

/** Cache-Control's no-transform, which the library also heeds: such an answer is neither compressed nor varied. */
const noTransform = (res: Response) => /(?:^|,)\s*?no-transform\s*?(?:,|$)/i.test(String(res.getHeader('Cache-Control') ?? ''));

export function compressJson(): RequestHandler {
  const compress = compression({
    filter: (_req: Request, res: Response) => isText(res),
    threshold: THRESHOLD_BYTES,
    level: GZIP_LEVEL,
    brotli: { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } },
  });
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.headers['accept-encoding'] !== undefined) return compress(req, res, next);
    // What the library would do with this request: say that the answer varies with Accept-Encoding.
    onHeaders(res, () => {
      if (isText(res) && !noTransform(res)) res.vary('Accept-Encoding');
    });
    next();
  };
}
